import { afterEach, describe, expect, it } from 'vitest';
import { BudgetPool, type BudgetTask } from './budget-pool.ts';
import type { TestInput } from './fixtures/test-task.ts';

const moduleUrl = new URL('./fixtures/test-task.ts', import.meta.url).href;
const pools: Array<BudgetPool<TestInput, unknown>> = [];
function pool(size = 2, maxJobItems = 8) {
  const p = new BudgetPool<TestInput, unknown>({ moduleUrl, size, maxJobItems, watchdogIntervalMs: 5 });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const double = (n: number, budgetMs = 5_000): BudgetTask<TestInput> => ({ input: { op: 'double', n }, budgetMs });

describe('BudgetPool', () => {
  it('returns every result in input order across workers', async () => {
    const out = await pool().run(Array.from({ length: 200 }, (_, i) => double(i)));
    expect(out).toEqual(Array.from({ length: 200 }, (_, i) => ({ status: 'ok', value: i * 2 })));
  });

  it('times out only the item that never finishes and completes the rest', async () => {
    const tasks = Array.from({ length: 40 }, (_, i) => double(i));
    tasks[17] = { input: { op: 'spin' }, budgetMs: 50 };
    const out = await pool().run(tasks);
    expect(out[17]).toEqual({ status: 'timeout' });
    out.forEach((o, i) => {
      if (i !== 17) expect(o).toEqual({ status: 'ok', value: i * 2 });
    });
  });

  it('times out a catastrophically backtracking regex and keeps serving afterwards', async () => {
    const p = pool(1);
    const out = await p.run([double(1), { input: { op: 'backtrack', n: 60 }, budgetMs: 50 }, double(3)]);
    expect(out.map((o) => o.status)).toEqual(['ok', 'timeout', 'ok']);
    expect(await p.run([double(5)])).toEqual([{ status: 'ok', value: 10 }]);
  });

  it('reports an item that throws as failed without affecting its neighbours', async () => {
    const out = await pool().run([double(1), { input: { op: 'throw' }, budgetMs: 1000 }, double(2)]);
    expect(out).toEqual([
      { status: 'ok', value: 2 },
      { status: 'failed', message: 'item exploded' },
      { status: 'ok', value: 4 },
    ]);
  });

  it('serves concurrent batches independently', async () => {
    const p = pool();
    const [a, b] = await Promise.all([p.run([double(1), double(2)]), p.run([{ input: { op: 'spin' }, budgetMs: 30 }, double(3)])]);
    expect(a).toEqual([{ status: 'ok', value: 2 }, { status: 'ok', value: 4 }]);
    expect(b).toEqual([{ status: 'timeout' }, { status: 'ok', value: 6 }]);
  });

  it('rejects a batch whose signal aborts and kills its work', async () => {
    const p = pool(1);
    const ctl = new AbortController();
    const running = p.run([{ input: { op: 'spin' }, budgetMs: 60_000 }], ctl.signal);
    ctl.abort(new Error('caller gave up'));
    await expect(running).rejects.toThrow('caller gave up');
    expect(await p.run([double(4)])).toEqual([{ status: 'ok', value: 8 }]);
  });
});
