// The isolate back-end's part of the memory contract: whatever a program can
// allocate there (heap, ArrayBuffers, SharedArrayBuffers) stops within
// memory_limit_MB + max(32 MiB, 25%) with the memory verdict, WebAssembly (whose
// memory the isolate's limit would not count) is not there, and no process or
// thread can be started. Real worker processes; each program reports what it
// holds, so nothing here depends on timing.

import { afterAll, describe, expect, it } from 'vitest';
import { testRunSpec } from '../../core/testing/run-spec.ts';
import { canRunInIsolate } from './index.ts';
import { testIsolateRunner } from './testing/runner.ts';

const LIMIT_MB = 128;
const MARGIN_MB = Math.max(32, LIMIT_MB / 4);
const signal = () => new AbortController().signal;

/** The last `held N` line a program printed: MiB it held at once. */
function heldMb(stdout: string | null | undefined): number {
  const lines = (stdout ?? '').split('\n').filter((l) => l.startsWith('held '));
  return Number(lines.at(-1)?.slice('held '.length) ?? 0);
}

describe(`the isolate holds a program within memory_limit_MB + ${MARGIN_MB} MiB`, () => {
  const runner = testIsolateRunner({ warmMemoryMb: [LIMIT_MB] });
  afterAll(() => runner.close());
  const run = async (code: string) => (await runner.run(testRunSpec('nodejs', code, { memoryLimitMb: LIMIT_MB, runTimeoutMs: 60_000 }), signal())).run_result;

  // Each keeps 8 MiB chunks, touched, until an allocation fails; `base` is what it held before.
  const grow = (make: string, base = 0) =>
    `const kept = []; let held = ${base};
    for (;;) { const a = ${make}; a.fill(1); kept.push(a); held += 8; console.log('held ' + held); }`;

  it.each([
    ['ArrayBuffers', grow('new Uint8Array(8 * 2 ** 20)')],
    ['SharedArrayBuffers', grow('new Uint8Array(new SharedArrayBuffer(8 * 2 ** 20))')],
    [
      'a 64 MiB heap, then ArrayBuffers',
      `const heap = []; for (let i = 0; i < 64; i++) heap.push(new Array(2 ** 17).fill(i + 0.5));\n${grow('new Float64Array(2 ** 20)', 64)}`,
    ],
  ])(
    '%s: stopped by a RangeError, memory_limit_exceeded',
    async (_name, code) => {
      const r = await run(code);
      expect(r).toMatchObject({ status: 'Finished', return_code: 1, memory_limit_exceeded: true });
      expect(r?.stderr).toMatch(/RangeError: Array buffer allocation failed/);
      const held = heldMb(r?.stdout);
      expect(held).toBeGreaterThanOrEqual(LIMIT_MB / 2);
      expect(held).toBeLessThanOrEqual(LIMIT_MB + MARGIN_MB);
    },
    120_000,
  );

  it('a heap that outgrows the limit: the heap-limit verdict (134, memory_limit_exceeded)', async () => {
    const r = await run('const a = []; for (;;) a.push(new Array(1e5).fill(1.5));');
    expect(r).toMatchObject({ status: 'Finished', return_code: 134, memory_limit_exceeded: true });
    expect(r?.stderr).toContain(`sandbox memory limit of ${LIMIT_MB} MiB reached`);
  }, 120_000);

  it('WebAssembly is not in the isolate, however the program reaches for it; programs that name it run natively', async () => {
    const code = `console.log(typeof Function('return this')()['Web' + 'Assembly']);
      new Function('return WebAssembly.Memory')();`;
    const r = await run(code);
    expect(r).toMatchObject({ status: 'Finished', return_code: 1, stdout: 'undefined\n' });
    expect(r?.stderr).toContain('ReferenceError: WebAssembly is not defined');
    const wasm = 'const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (;;) m.grow(256);';
    for (const code of [wasm, 'console.log(typeof WebAssembly)', 'globalThis.WebAssembly.validate(new Uint8Array(8))']) {
      expect(canRunInIsolate(testRunSpec('nodejs', code))).toBe(false);
    }
  }, 120_000);
});

describe('forked children: the isolate cannot start a process or a thread', () => {
  const runner = testIsolateRunner({ warmMemoryMb: [LIMIT_MB] });
  afterAll(() => runner.close());
  const modules = ['child_process', 'node:child_process', 'worker_threads', 'node:worker_threads', 'cluster', 'node:cluster'];

  it("child_process, worker_threads and cluster are Node's missing module; nothing else runs", async () => {
    const code = `for (const m of ${JSON.stringify(modules)}) {
        try { require(m); console.log('loaded ' + m); } catch (e) { console.log(m + ' ' + e.code); }
      }
      console.log(typeof process.binding, typeof process.dlopen);
      require('child_process').fork(__filename);
      console.log('forked');`;
    const r = (await runner.run(testRunSpec('nodejs', code, { memoryLimitMb: LIMIT_MB, runTimeoutMs: 60_000 }), signal())).run_result;
    expect(r).toMatchObject({ status: 'Finished', return_code: 1 });
    expect(r?.stdout).toBe(`${modules.map((m) => `${m} MODULE_NOT_FOUND\n`).join('')}undefined undefined\n`);
    expect(r?.stderr).toContain("Error: Cannot find module 'child_process'");
  }, 120_000);

  it('the fast-path check sends programs that use them to the native runner (its run cgroup holds the children)', () => {
    for (const m of modules) {
      expect(canRunInIsolate(testRunSpec('nodejs', `require('${m}')`))).toBe(false);
      expect(canRunInIsolate(testRunSpec('nodejs', `import '${m}';`))).toBe(false);
    }
    expect(canRunInIsolate(testRunSpec('nodejs', "require('child_' + 'process')"))).toBe(false);
  });
});
