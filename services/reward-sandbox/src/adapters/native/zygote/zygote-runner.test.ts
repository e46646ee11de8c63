// The python zygote against real namespaces: the same containment and seccomp
// contracts as the per-run bubblewrap sandbox, plus what is specific to forking from a
// long-lived interpreter (no state shared between runs, pool recovery).

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';
import { hostProcessesWith, pySpec, pythonContainmentCases } from '../testing/python-containment.ts';
import { seccompCasesApply, seccompPythonCases } from '../seccomp/testing/containment.ts';
import { SlotPool } from '../slots/slot-pool.ts';
import { ZygoteRunner } from './zygote-runner.ts';

const native = new BwrapRunner();
const usable = native.languages().includes('python');
// Without a seccomp filter the bubblewrap runner offers no languages, so `usable` is false and nothing spawns.
const runner = new ZygoteRunner({ slots: native.slots, cgroups: native.cgroups, host: native.host, seccomp: native.seccomp! });
const never = new AbortController().signal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Whether any readable mapping of a host process holds `needle` (needs ptrace rights over it, e.g. root). */
function memoryContains(pid: number, needle: Buffer): boolean | null {
  let maps: string[];
  let fd: number;
  try {
    maps = readFileSync(`/proc/${pid}/maps`, 'utf8').trim().split('\n');
    fd = openSync(`/proc/${pid}/mem`, 'r');
  } catch {
    return null; // exited meanwhile (a finished run's supervisor)
  }
  try {
    for (const line of maps) {
      const [range, perms] = line.split(' ');
      if (!perms?.startsWith('r') || line.endsWith('[vvar]') || line.endsWith('[vsyscall]')) continue;
      const [a, b] = range!.split('-').map((x) => parseInt(x, 16));
      const buf = Buffer.alloc(b! - a!);
      try {
        readSync(fd, buf, 0, buf.length, a!);
      } catch {
        continue;
      }
      if (buf.includes(needle)) return true;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

beforeAll(async () => {
  if (usable) await runner.warm();
}, 30_000);
afterAll(async () => {
  await runner.close();
  native.close();
});

describe.skipIf(!usable)('ZygoteRunner (python contract)', () => {
  pythonContainmentCases(() => runner);
});

describe.skipIf(!usable || !seccompCasesApply)('ZygoteRunner (seccomp contract)', () => {
  seccompPythonCases(() => runner);
});

describe.skipIf(!usable)('ZygoteRunner', () => {
  it('runs a script like `python3 tmpXXXX.py`: argv, __file__, __name__, sys.path, tracebacks', async () => {
    const code =
      'import sys, os\nprint(sys.argv[0] == os.path.basename(__file__), __file__.startswith("/tmp/work/tmp"), __name__, sys.path[0], os.getcwd())\nraise ValueError("boom")';
    const out = await runner.run(pySpec(code), never);
    expect(out.run_result?.stdout).toBe('True True __main__ /tmp/work /tmp/work\n');
    expect(out.run_result?.return_code).toBe(1);
    expect(out.run_result?.stderr).toMatch(/^Traceback \(most recent call last\):\n {2}File "\/tmp\/work\/tmp\w+\.py", line 3, in <module>\n/);
    expect(out.run_result?.stderr).toContain('ValueError: boom');
    expect(out.run_result?.stderr).not.toContain('zygote');
  });

  it('reports syntax errors, sys.exit codes and signals as the interpreter would', async () => {
    const syntax = await runner.run(pySpec('def f(:\n    pass'), never);
    expect(syntax.run_result?.return_code).toBe(1);
    expect(syntax.run_result?.stderr).toContain('SyntaxError');
    expect((await runner.run(pySpec('import sys; sys.exit(3)'), never)).run_result?.return_code).toBe(3);
    expect((await runner.run(pySpec('import sys; sys.exit("bye")'), never)).run_result).toMatchObject({ return_code: 1, stderr: 'bye\n' });
    expect((await runner.run(pySpec('import os, signal; os.kill(os.getpid(), signal.SIGKILL)'), never)).run_result?.return_code).toBe(-9);
  });

  it('runs atexit handlers and non-daemon threads before exiting, and flushes output', async () => {
    const code =
      'import atexit, threading, time\natexit.register(lambda: print("atexit"))\nthreading.Thread(target=lambda: (time.sleep(0.05), print("thread"))).start()\nprint("main", end="")';
    const out = await runner.run(pySpec(code), never);
    expect(out.run_result?.stdout).toBe('mainthread\natexit\n');
  });

  it('passes stdin, files and fetch_files', async () => {
    const code = 'import helper\nopen("out.txt", "w").write(helper.shout(input()))\nprint(open("data/in.txt").read())';
    const files = { 'helper.py': Buffer.from('def shout(s):\n    return s.upper()\n'), 'data/in.txt': Buffer.from('data') };
    const out = await runner.run(pySpec(code, { stdin: 'hi\n', files, fetchFiles: ['out.txt', 'missing'] }), never);
    expect(out.run_result?.stdout).toBe('data\n');
    expect(out.files).toEqual({ 'out.txt': b64('HI') });
  });

  it('keeps no run data in the zygotes: later runs fork from memory that never saw it', async () => {
    const secret = `secret-${process.pid}-${Date.now()}-${'z'.repeat(40)}`;
    const out = await runner.run(
      pySpec(`s = "${secret}"\nprint(len(s), len(input()))`, { stdin: `${secret}\n`, files: { 'x.txt': Buffer.from(secret) } }),
      never,
    );
    expect(out.run_result?.stdout).toBe(`${secret.length} ${secret.length}\n`);
    const zygotes = hostProcessesWith('/run/zygote/zygote.py').map((line) => Number(line.split(':')[0]));
    const scanned = zygotes.map((pid) => memoryContains(pid, Buffer.from(secret))).filter((found) => found !== null);
    expect(scanned.length).toBeGreaterThanOrEqual(2); // the zygotes and their prepared next sandboxes
    expect(scanned).not.toContain(true);
  });

  it('ignores signals the program sends to its pid 1', async () => {
    const code =
      'import os, signal\nfor s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):\n    try: os.kill(1, s)\n    except OSError: pass\nprint("still here")';
    const out = await runner.run(pySpec(code), never);
    expect(out.run_result).toMatchObject({ return_code: 0, stdout: 'still here\n' });
  });

  it('gives random a fresh seed per run', async () => {
    const draw = async () => (await runner.run(pySpec('import random; print(random.random())'), never)).run_result?.stdout;
    const values = new Set([await draw(), await draw(), await draw()]);
    expect(values.size).toBe(3);
  });

  it('refuses to start without a valid seccomp program', async () => {
    const broken = new ZygoteRunner({
      slots: new SlotPool({ size: 1, uidBase: native.slots.uidBase }),
      cgroups: null,
      host: native.host,
      seccomp: { ...native.seccomp!, bpf: Buffer.alloc(12) },
    });
    await expect(broken.warm()).rejects.toThrow();
    await broken.close();
  });

  it('replaces a zygote killed by an abort and keeps serving', async () => {
    const ac = new AbortController();
    const pending = runner.run(pySpec('import time; time.sleep(60)'), ac.signal);
    ac.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    const results = await Promise.all([0, 1, 2, 3].map((i) => runner.run(pySpec(`print(${i})`), never)));
    expect(results.map((r) => r.run_result?.stdout)).toEqual(['0\n', '1\n', '2\n', '3\n']);
  });
});
