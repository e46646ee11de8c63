import { AppError, BoundedQueue } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { createExecutor, limitInFlight, type SelectiveRunner } from './executor.ts';
import type { RunOutcome, RunSpec, Runner } from './runner.ts';

const outcome = (by: string): RunOutcome => ({
  compile_result: null,
  run_result: { status: 'Finished', execution_time: 0, return_code: 0, stdout: by, stderr: '' },
  files: {},
  notes: [],
});
const spec = (language: string, code = ''): RunSpec => ({
  language,
  code,
  stdin: null,
  compileTimeoutMs: 1,
  runTimeoutMs: 1,
  memoryLimitMb: 64,
  files: {},
  fetchFiles: [],
  maxOutputBytes: 1,
});

const native: Runner = { name: 'bwrap', languages: () => ['python', 'nodejs'], run: async () => outcome('bwrap') };
const fast: SelectiveRunner = {
  name: 'isolated-vm',
  languages: () => ['nodejs', 'typescript'],
  canRun: (s) => !s.code.includes('require'),
  run: async () => outcome('ivm'),
};
const queue = () => new BoundedQueue({ concurrency: 2, maxQueued: 2 });

describe('createExecutor', () => {
  it('uses the fast path when it can take the program, else the native sandbox', async () => {
    const ex = createExecutor(native, queue(), [fast]);
    expect((await ex.run(spec('nodejs', 'console.log(1)'))).run_result?.stdout).toBe('ivm');
    expect((await ex.run(spec('nodejs', "require('fs')"))).run_result?.stdout).toBe('bwrap');
    expect((await ex.run(spec('python'))).run_result?.stdout).toBe('bwrap');
    expect((await ex.run(spec('typescript', 'let a: number = 1'))).run_result?.stdout).toBe('ivm');
  });

  it('takes the first fast path that accepts the program', async () => {
    const zygote: SelectiveRunner = {
      name: 'python-zygote',
      languages: () => ['python'],
      canRun: (s) => !s.code.includes('slow'),
      run: async () => outcome('zygote'),
    };
    const ex = createExecutor(native, queue(), [fast, zygote]);
    expect((await ex.run(spec('python', 'print(1)'))).run_result?.stdout).toBe('zygote');
    expect((await ex.run(spec('python', 'slow'))).run_result?.stdout).toBe('bwrap');
    expect((await ex.run(spec('nodejs', 'console.log(1)'))).run_result?.stdout).toBe('ivm');
    expect(ex.languages()).toContainEqual({ language: 'python', runner: 'python-zygote (falls back to bwrap)' });
  });

  it('refuses a language nobody runs with a 400 naming it', async () => {
    const err = await createExecutor(native, queue())
      .run(spec('cobol'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('unsupported_language');
    expect((err as AppError).message).toContain('cobol');
  });

  it('lists every language with its back-end', () => {
    expect(createExecutor(native, queue(), [fast]).languages()).toEqual([
      { language: 'nodejs', runner: 'isolated-vm (falls back to bwrap)' },
      { language: 'python', runner: 'bwrap' },
      { language: 'typescript', runner: 'isolated-vm' },
    ]);
  });

  it('sends runs past a limited fast path’s cap to the native sandbox, and picks when the run starts', async () => {
    const gates: Array<() => void> = [];
    const slowFast: SelectiveRunner = {
      ...fast,
      run: () => new Promise((res) => gates.push(() => res(outcome('ivm')))),
    };
    const ex = createExecutor(native, new BoundedQueue({ concurrency: 4 }), [limitInFlight(slowFast, 1)]);
    const a = ex.run(spec('nodejs', 'console.log(1)'));
    await new Promise((r) => setImmediate(r));
    const b = ex.run(spec('nodejs', 'console.log(2)'));
    expect((await b).run_result?.stdout).toBe('bwrap');
    gates[0]!();
    expect((await a).run_result?.stdout).toBe('ivm');
    const c = ex.run(spec('nodejs', 'console.log(3)'));
    await new Promise((r) => setImmediate(r));
    gates[1]!();
    expect((await c).run_result?.stdout).toBe('ivm');
  });
});
