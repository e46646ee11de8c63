// Functional tests of the bubblewrap runner against real sandboxes (containment
// properties are in bwrap/containment.test.ts). Skipped where bwrap cannot run.

import { afterAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../../../core/runner.ts';
import { BwrapRunner } from './bubblewrap-runner.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { LANGUAGES } from '../languages/index.ts';
import { PROGRAMS } from '../languages/testing/programs.ts';

const runner = new BwrapRunner({ nodePath: process.execPath });
afterAll(() => runner.close());
const never = new AbortController().signal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

// Limits far past what these programs need: a JVM language's hello world alone can
// take ten seconds on a loaded 2-core host. Tests about a limit set their own.
function spec(language: string, code: string, extra: Partial<RunSpec> = {}): RunSpec {
  return testRunSpec(language, code, { compileTimeoutMs: 45_000, runTimeoutMs: 45_000, memoryLimitMb: 512, ...extra });
}

const HELLO: Record<string, string> = {
  python: 'print("hello")',
  pytest: 'def test_ok():\n    print("hello")\n    assert 1 + 1 == 2',
  bash: 'echo hello',
  cpp: '#include <iostream>\nint main() { std::cout << "hello" << std::endl; }',
  go: 'package main\nimport "fmt"\nfunc main() { fmt.Println("hello") }',
  nodejs: 'console.log("hello")',
  typescript: 'enum Greeting { Hello = "hello" }\nconst g: string = Greeting.Hello;\nconsole.log(g);',
  go_test: 'package main\nimport "testing"\nfunc TestOk(t *testing.T) { t.Log("hello") }',
  junit: 'import org.junit.jupiter.api.Test;\npublic class HelloTest { @Test void ok() { System.out.println("hello"); } }',
  ...Object.fromEntries(Object.entries(PROGRAMS).map(([l, p]) => [l, p.hello])),
};
// Test runners print their own report rather than the program's output.
const REPORTS = ['pytest', 'go_test', 'junit'];

describe.skipIf(runner.languages().length === 0)('BwrapRunner', () => {
  it('probes python, bash, cpp and node languages on this host', () => {
    expect(runner.languages()).toEqual(expect.arrayContaining(['python', 'bash', 'cpp', 'nodejs', 'typescript']));
  });

  it.each(runner.languages().map((l) => [l]))(
    'runs hello world in %s',
    async (language) => {
      const out = await runner.run(spec(language, HELLO[language] ?? ''), never);
      expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0 });
      if (!REPORTS.includes(language)) expect(out.run_result?.stdout).toBe('hello\n');
      expect(out.compile_result === null).toBe(LANGUAGES[language]?.compile === undefined);
      expect(out.run_result?.execution_time).toBeGreaterThan(0);
    },
    120_000,
  );

  it('passes stdin through (a regular file, so /dev/stdin works too)', async () => {
    const py = await runner.run(spec('python', 'print(int(input()) * 2)', { stdin: '21\n' }), never);
    expect(py.run_result?.stdout).toBe('42\n');
    const sh = await runner.run(spec('bash', 'cat /dev/stdin; read -r x < /dev/stdin; echo "[$x]"', { stdin: 'line' }), never);
    expect(sh.run_result?.stdout).toBe('line[line]\n');
  });

  it('gives the program real pipes: /dev/stdout and /dev/stderr can be reopened', async () => {
    const out = await runner.run(spec('bash', 'echo out > /dev/stdout; echo err > /dev/stderr'), never);
    expect(out.run_result).toMatchObject({ stdout: 'out\n', stderr: 'err\n', return_code: 0 });
  });

  it('round-trips files and fetch_files (missing files are simply absent)', async () => {
    const code =
      'import os\nos.makedirs("out", exist_ok=True)\nopen("out/r.txt", "w").write(open("data/in.txt").read().upper())\nopen("empty", "a").write("x")';
    const out = await runner.run(
      spec('python', code, { files: { 'data/in.txt': Buffer.from('hello'), empty: null }, fetchFiles: ['out/r.txt', 'missing.txt', 'data/in.txt', 'empty'] }),
      never,
    );
    expect(out.run_result?.return_code).toBe(0);
    expect(out.files).toEqual({ 'out/r.txt': b64('HELLO'), 'data/in.txt': b64('hello'), empty: b64('x') });
  });

  it('lets python import modules passed in files (script dir on sys.path)', async () => {
    const out = await runner.run(spec('python', 'import helper; print(helper.X)', { files: { 'helper.py': Buffer.from('X = 7') } }), never);
    expect(out.run_result?.stdout).toBe('7\n');
  });

  it('reports non-zero exit codes, and signal deaths as negative codes', async () => {
    const exit = await runner.run(spec('python', 'import sys; print("bye"); sys.exit(3)'), never);
    expect(exit.run_result).toMatchObject({ status: 'Finished', return_code: 3, stdout: 'bye\n' });
    const segv = await runner.run(spec('bash', 'kill -SEGV $$'), never);
    expect(segv.run_result).toMatchObject({ status: 'Finished', return_code: -11, memory_limit_exceeded: false });
    const err = await runner.run(spec('python', 'raise ValueError("boom")'), never);
    expect(err.run_result?.return_code).toBe(1);
    expect(err.run_result?.stderr).toContain('ValueError: boom');
  });

  it('reports a cpp compile error as compile_result with no run', async () => {
    const out = await runner.run(spec('cpp', 'int main( {'), never);
    expect(out.compile_result).toMatchObject({ status: 'Finished' });
    expect(out.compile_result?.return_code).not.toBe(0);
    expect(out.compile_result?.stderr).toContain('error');
    expect(out.run_result).toBeNull();
  });

  it('stops a compile at compile_timeout', async () => {
    const out = await runner.run(spec('cpp', '#include <bits/stdc++.h>\nint main() {}', { compileTimeoutMs: 50 }), never);
    expect(out.compile_result).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
    expect(out.run_result).toBeNull();
  });

  it('rejects unsafe paths in files and fetch_files', async () => {
    const cases: Array<RunSpec['files']> = [{ '../x': null }, { '/etc/x': null }, { 'a/../../x': null }, { a: null, 'a/b': null }];
    for (const files of cases) {
      await expect(runner.run(spec('python', 'pass', { files }), never)).rejects.toThrow(/invalid/);
    }
    await expect(runner.run(spec('python', 'pass', { fetchFiles: ['../etc/passwd'] }), never)).rejects.toThrow(/invalid/);
  });

  it('rejects a language it does not run', async () => {
    await expect(runner.run(spec('cobol', ''), never)).rejects.toThrow(/cannot run cobol/);
  });

  it('runs concurrently without sharing state', async () => {
    const outs = await Promise.all(
      [1, 2, 3, 4].map((i) => runner.run(spec('python', `open("f", "w").write("${i}"); import time; time.sleep(0.1); print(open("f").read())`), never)),
    );
    expect(outs.map((o) => o.run_result?.stdout)).toEqual(['1\n', '2\n', '3\n', '4\n']);
  });

  it('kills the sandbox and rejects promptly on abort', async () => {
    const ac = new AbortController();
    const started = performance.now();
    // Neither the program nor its time limit ends the run within 60 s: only the abort can.
    const p = runner.run(spec('python', 'import time; time.sleep(60)', { runTimeoutMs: 120_000 }), ac.signal);
    setTimeout(() => ac.abort(new Error('client went away')), 300);
    await expect(p).rejects.toThrow('client went away');
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
