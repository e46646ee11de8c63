import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '@rl/service-kit';
import { BudgetPool, type BudgetPoolOptions } from './budget-pool.ts';
import type { TestInput } from './fixtures/test-task.ts';

const moduleUrl = new URL('./fixtures/test-task.ts', import.meta.url).href;
const pools: BudgetPool[] = [];
function pool(size = 2) {
  const p = new BudgetPool({ moduleUrl, size, watchdogIntervalMs: 5, workerHeapMb: 64 });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const run = async (p: BudgetPool, inputs: TestInput[], signal?: AbortSignal) =>
  JSON.parse((await p.run(JSON.stringify(inputs), signal)) as string) as unknown[];
const doubles = (n: number): TestInput[] => Array.from({ length: n }, (_, i) => ({ op: 'double', n: i }));

describe('BudgetPool', () => {
  it('reports ready once every worker has loaded its module', async () => {
    const p = pool(2);
    await p.whenReady();
    expect(p.readyWorkers).toBe(2);
  });

  it('keeps a process with nothing else alive until its workers are ready', () => {
    // Before, `await pool.whenReady()` at top level exited the process early
    // ("unsettled top-level await", exit code 13): the workers are unref'd.
    const script = [
      `import { BudgetPool } from ${JSON.stringify(new URL('./budget-pool.ts', import.meta.url).href)};`,
      `const p = new BudgetPool({ moduleUrl: ${JSON.stringify(moduleUrl)}, size: 1 });`,
      'await p.whenReady();',
      "console.log('ready', p.readyWorkers);",
      'await p.close();',
    ].join('\n');
    // A file, not `--input-type=module -e`: worker threads inherit execArgv, and --input-type breaks them.
    const dir = mkdtempSync(join(tmpdir(), 'budget-pool-'));
    const file = join(dir, 'main.mjs');
    writeFileSync(file, script);
    const out = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(out.stderr).not.toMatch(/unsettled top-level await/);
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe('ready 1');
  });

  it('gives up with a clear error when the module cannot be loaded', async () => {
    const broken = new BudgetPool({ moduleUrl: new URL('./fixtures/no-such-module.ts', import.meta.url).href, size: 1 });
    pools.push(broken);
    await expect(broken.whenReady()).rejects.toThrow(/worker pool broken/);
    await expect(broken.run('[]')).rejects.toThrow();
  });

  it('computes a batch in order and accepts bytes as well as strings', async () => {
    const p = pool();
    expect(await run(p, doubles(100))).toEqual(Array.from({ length: 100 }, (_, i) => i * 2));
    const bytes = new TextEncoder().encode(JSON.stringify(doubles(3)));
    expect(JSON.parse((await p.run(bytes)) as string)).toEqual([0, 2, 4]);
  });

  it('marks only the item that never finishes as timed out and computes the rest', async () => {
    const inputs = doubles(40);
    inputs[17] = { op: 'spin', budgetMs: 50 };
    const out = await run(pool(), inputs);
    expect(out[17]).toEqual({ skipped: 'timeout' });
    out.forEach((o, i) => {
      if (i !== 17) expect(o).toBe(i * 2);
    });
  });

  it('survives several pathological items in one batch, including catastrophic backtracking', async () => {
    const p = pool(1);
    const out = await run(p, [
      { op: 'double', n: 1 },
      { op: 'backtrack', n: 60, budgetMs: 40 },
      { op: 'spin', budgetMs: 40 },
      { op: 'double', n: 3 },
    ]);
    expect(out).toEqual([2, { skipped: 'timeout' }, { skipped: 'timeout' }, 6]);
    expect(await run(p, doubles(2))).toEqual([0, 2]);
  });

  it('marks an item that kills its worker (out of memory) as crashed and finishes the batch', async () => {
    const out = await run(pool(1), [{ op: 'double', n: 2 }, { op: 'oom' }, { op: 'double', n: 5 }]);
    expect(out).toEqual([4, { skipped: 'crashed' }, 10]);
  });

  it('fails the whole batch with the module’s error code when the payload is rejected', async () => {
    const err = await pool()
      .run('reject')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('validation_failed');
    expect((err as AppError).status).toBe(400);
  });

  it('reports an exception thrown by an item as the batch error (modules catch per-item errors themselves)', async () => {
    const err = await pool()
      .run(JSON.stringify([{ op: 'throw' }]))
      .catch((e: unknown) => e);
    expect((err as AppError).code).toBe('scorer_failed');
  });

  it('runs concurrent batches on separate workers independently', async () => {
    const p = pool();
    const [a, b] = await Promise.all([
      run(p, doubles(2)),
      run(p, [
        { op: 'spin', budgetMs: 30 },
        { op: 'double', n: 3 },
      ]),
    ]);
    expect(a).toEqual([0, 2]);
    expect(b).toEqual([{ skipped: 'timeout' }, 6]);
  });

  it('rejects a batch whose signal aborts, kills its work, and keeps serving', async () => {
    const p = pool(1);
    const ctl = new AbortController();
    const running = p.run(JSON.stringify([{ op: 'spin' }]), ctl.signal);
    ctl.abort(new Error('caller gave up'));
    await expect(running).rejects.toThrow('caller gave up');
    expect(await run(p, doubles(3))).toEqual([0, 2, 4]);
  });
});

describe('BudgetPool memory options', () => {
  const make = (opts: Partial<BudgetPoolOptions>) => {
    const p = new BudgetPool({ moduleUrl, size: 1, watchdogIntervalMs: 5, workerHeapMb: 64, ...opts });
    pools.push(p);
    return p;
  };
  const withTimeout: TestInput[] = [
    { op: 'double', n: 1 },
    { op: 'spin', budgetMs: 40 },
    { op: 'double', n: 2 },
  ];

  it('keeps no spare worker until one is replaced, then one warm spare (on-demand, the default)', async () => {
    const p = make({});
    await p.whenReady();
    expect(p.spareWorkers).toBe(0);
    expect(await run(p, withTimeout)).toEqual([2, { skipped: 'timeout' }, 4]);
    expect(p.spareWorkers).toBe(1);
    // The next replacement takes the warm spare and starts another.
    expect(await run(p, withTimeout)).toEqual([2, { skipped: 'timeout' }, 4]);
    expect(p.spareWorkers).toBe(1);
  });

  it('retires the on-demand spare after spareIdleMs without a replacement, and still replaces workers afterwards', async () => {
    const p = make({ spareIdleMs: 1 });
    expect(await run(p, withTimeout)).toEqual([2, { skipped: 'timeout' }, 4]);
    await vi.waitFor(() => expect(p.spareWorkers).toBe(0), { timeout: 10_000 });
    expect(await run(p, withTimeout)).toEqual([2, { skipped: 'timeout' }, 4]);
  });

  it('keeps a spare from the start when eager, and never when none', async () => {
    const eager = make({ spare: 'eager' });
    expect(eager.spareWorkers).toBe(1);
    const none = make({ spare: 'none' });
    expect(await run(none, withTimeout)).toEqual([2, { skipped: 'timeout' }, 4]);
    expect(none.spareWorkers).toBe(0);
    expect(await run(none, doubles(3))).toEqual([0, 2, 4]);
  });

  it("caps each worker's young generation when asked (V8's default is far larger)", async () => {
    const capped = make({ workerYoungGenerationMb: 4 });
    const uncapped = make({});
    await Promise.all([capped.whenReady(), uncapped.whenReady()]);
    const [[small], [large]] = await Promise.all([capped.heapStatistics(), uncapped.heapStatistics()]);
    expect(small!.heap_size_limit).toBeLessThan(large!.heap_size_limit);
    expect(await run(capped, doubles(50))).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
  });
});
