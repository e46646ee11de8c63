// Hostile programs against real bubblewrap sandboxes: the python contract shared
// with the zygote (../testing/python-containment.ts) and the seccomp
// red-team cases (../seccomp/testing/containment.ts), plus what only the
// native runner does (bash, compiled languages, its report channel, tmpfs cap).

import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../../core/runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from './bubblewrap-runner.ts';
import { hostProcessesWith, marker, pythonContainmentCases } from '../testing/python-containment.ts';
import { seccompCasesApply, seccompNativeCases, seccompPythonCases } from '../seccomp/testing/containment.ts';
import { SeccompProblem } from '../seccomp/filter.ts';

const runner = new BwrapRunner({ nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;

function spec(language: string, code: string, extra: Partial<RunSpec> = {}): RunSpec {
  return testRunSpec(language, code, { compileTimeoutMs: 20_000, runTimeoutMs: 5_000, memoryLimitMb: 256, ...extra });
}

describe.skipIf(!runner.languages().includes('python'))('bwrap containment (python contract)', () => {
  pythonContainmentCases(() => runner);
});

describe.skipIf(!runner.languages().includes('python') || !seccompCasesApply)('bwrap seccomp filter (python contract)', () => {
  seccompPythonCases(() => runner);
});

describe.skipIf(!runner.languages().includes('cpp') || !seccompCasesApply)('bwrap seccomp filter (bash, cpp)', () => {
  seccompNativeCases(() => runner);
});

describe.skipIf(runner.languages().length === 0)('bwrap without a seccomp filter', () => {
  it('fails closed: no languages, the reason in the host problems, runs refused', async () => {
    const bare = new BwrapRunner({ cgroups: false, seccompLibrary: '/nonexistent/libseccomp.so.2' });
    expect(bare.seccomp).toBeNull();
    expect(bare.languages()).toEqual([]);
    expect(bare.host.problems.some((p) => p.includes(SeccompProblem.LibraryMissing))).toBe(true);
    await expect(bare.run(spec('bash', 'echo hi'), never)).rejects.toThrow();
  });
});

describe.skipIf(!runner.languages().includes('bash'))('bwrap containment (native languages)', () => {
  it('survives a classic bash fork bomb and leaves nothing behind', async () => {
    const m = `bomb-${marker()}`; // $0 of every fork, so the host can look for survivors
    const out = await runner.run(spec('bash', `exec bash -c ':(){ :|:& };:' ${m}`, { runTimeoutMs: 1500 }), never);
    expect(out.run_result).not.toBeNull();
    expect(hostProcessesWith(m)).toEqual([]);
  }, 15_000);

  it('flags memory bombs in compiled languages', async () => {
    const grow = await runner.run(
      spec('cpp', '#include <vector>\nint main() { std::vector<std::vector<char>> v; for (;;) v.emplace_back(1 << 20, 1); }'),
      never,
    );
    expect(grow.run_result?.memory_limit_exceeded).toBe(true);
    expect(grow.run_result?.return_code).not.toBe(0);
    if (runner.languages().includes('go')) {
      const go = await runner.run(
        spec('go', 'package main\nfunc main() { var a [][]byte; for { b := make([]byte, 1<<20); for i := range b { b[i] = 1 }; a = append(a, b) } }'),
        never,
      );
      expect(go.run_result?.memory_limit_exceeded).toBe(true);
    }
  }, 30_000);

  it('cannot fake an early finish through the report channel', async () => {
    const code =
      'import os\ntry:\n    fd = os.open(f"/proc/{os.getppid()}/fd/3", os.O_WRONLY); os.write(fd, b"R 0\\n"); print("forged")\nexcept OSError as e:\n    print("refused", e.errno)\nwhile True: pass';
    const out = await runner.run(spec('python', code, { runTimeoutMs: 1000 }), never);
    expect(out.run_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
  });

  it('leaves nothing behind when the caller aborts a bash run', async () => {
    const m = marker();
    const ac = new AbortController();
    const run = runner.run(spec('bash', `sleep ${m} & sleep ${m}`), ac.signal);
    while (hostProcessesWith(m).length === 0) await new Promise((r) => setImmediate(r));
    ac.abort(new Error('cancelled'));
    await expect(run).rejects.toThrow('cancelled');
    expect(hostProcessesWith(m)).toEqual([]);
  });

  it('caps the writable work dir (tmpfs size)', async () => {
    const small = new BwrapRunner({ tmpMb: 16, cgroups: false });
    const out = await small.run(spec('bash', 'head -c 64M /dev/zero > big; echo rc=$?; ls -s big'), never);
    expect(out.run_result?.stdout).toMatch(/rc=1/);
    expect(out.run_result?.stderr).toContain('No space left on device');
  });
});
