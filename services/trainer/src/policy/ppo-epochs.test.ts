import { describe, expect, it } from 'vitest';
import { chunks, runPpoEpochs, type EpochTrainer } from './ppo-epochs.ts';

function recorder() {
  const seen: Array<{ micro: number[]; scale: number }> = [];
  let steps = 0;
  const trainer: EpochTrainer<number> = {
    accumulate: async (micro, scale) => {
      seen.push({ micro: [...micro], scale });
      return { 'actor/pg_loss': micro.length, 'actor/pg_clipfrac': micro[0]! };
    },
    step: async () => ({ gradNorm: ++steps, skipped: false }),
  };
  return { seen, trainer, steps: () => steps };
}

describe('runPpoEpochs (verl update_policy)', () => {
  const batch = [0, 1, 2, 3, 4, 5, 6, 7];

  it('walks mini-batches in order without shuffle, micro-batches scaled by 1/gradient_accumulation, one step per mini-batch', async () => {
    const r = recorder();
    const m = await runPpoEpochs(
      batch,
      { ppoEpochs: 2, miniBatchSize: 4, microBatchSize: 2, shuffle: false, seed: 1 },
      r.trainer,
      ['actor/pg_loss'],
      'actor/grad_norm',
    );
    expect(r.seen.map((s) => s.micro)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
    ]);
    expect(r.seen.every((s) => s.scale === 0.5)).toBe(true);
    expect(r.steps()).toBe(4);
    // pg_loss is summed as verl does: 8 micro-batches x (2 sequences x 0.5) = 8; clipfrac and grad_norm are means.
    expect(m['actor/pg_loss']).toBe(8);
    expect(m['actor/pg_clipfrac']).toBe((0 + 2 + 4 + 6) / 4);
    expect(m['actor/grad_norm']).toBe(2.5);
    expect(m['actor/update_skipped']).toBe(0);
  });

  it('reshuffles every epoch when shuffle is on, the same way for the same seed', async () => {
    const a = recorder();
    const b = recorder();
    const plan = { ppoEpochs: 2, miniBatchSize: 8, microBatchSize: null, shuffle: true, seed: 42 };
    await runPpoEpochs(batch, plan, a.trainer, [], 'actor/grad_norm');
    await runPpoEpochs(batch, plan, b.trainer, [], 'actor/grad_norm');
    expect(a.seen).toEqual(b.seen);
    expect(a.seen[0]!.micro).not.toEqual(batch);
    expect(a.seen[0]!.micro).not.toEqual(a.seen[1]!.micro);
    expect([...a.seen[0]!.micro].sort()).toEqual(batch);
  });

  it('chunks keep order and leave a smaller tail', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
