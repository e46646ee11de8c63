// Hand-computed behaviour of the verl losses (clip sides, detach, clamps, counts) and the filler
// rows a batch is padded with, through lossOnLeaves as every engine runs them. The golden numbers
// are in losses.golden.test.ts.
import { lossOnLeaves, type TrainBatch } from '@rl/policy';
import { createRng } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { WorkerLossSpec } from '../worker-spec.ts';
import { clipCovCount } from './clip-cov.ts';
import { createPpoLoss } from './create-ppo-loss.ts';

const BASE = {
  clip_ratio_low: 0.2,
  clip_ratio_high: 0.2,
  clip_ratio_c: 3,
  loss_agg_mode: 'token-mean',
  entropy_coeff: 0,
  use_kl_loss: false,
  kl_loss_coef: 0.001,
  kl_loss_type: 'low_var_kl',
  loss_scale_factor: 8,
};
const lossFor = (settings: Record<string, unknown> = {}, policy: Record<string, unknown> = {}) =>
  createPpoLoss(WorkerLossSpec.parse({ ...BASE, ...settings, policy_loss: { loss_mode: 'vanilla', ...policy } }));

/** One pair with the given per-token log-probs, old log-probs and advantages; entropies 0. */
async function onePair(loss: ReturnType<typeof lossFor>, logp: number[], old: number[], adv: number[]) {
  const batch: TrainBatch = {
    pairs: [{ prompt: [1], response: logp.map(() => 2) }],
    inputs: { old_logprobs: [old], advantages: [adv], response_mask: [logp.map(() => 1)] },
  };
  const res = await lossOnLeaves(loss, batch, { logprobs: [Float32Array.from(logp)], entropy: [new Float32Array(logp.length)] });
  return { loss: res.loss, metrics: res.metrics, grad: Array.from(res.grads.logprobs[0] as Float32Array) };
}

describe('verl policy losses, hand-computed tokens', () => {
  const vanilla = lossFor({}, {});
  it.each([
    // [ratio, A, loss, d loss / d logp, pg_clipfrac, pg_clipfrac_lower]
    ['A > 0, ratio 1.5 clipped to 1.2: no gradient', 1.5, 1, -1.2, 0, 1, 0],
    ['A > 0, ratio 0.5: the unclipped side, gradient -A r', 0.5, 1, -0.5, -0.5, 0, 0],
    ['A < 0, ratio 4 > clip_ratio_c: dual-clipped to 3, no gradient', 4, -1, 3, 0, 0, 1],
    ['A < 0, ratio 2 < clip_ratio_c: unclipped, gradient -A r', 2, -1, 2, 2, 0, 0],
  ])('vanilla: %s', async (_name, ratio, adv, loss, grad, clipfrac, lower) => {
    const r = await onePair(vanilla, [Math.log(ratio)], [0], [adv]);
    expect(r.loss).toBeCloseTo(loss, 5);
    expect(r.grad[0]).toBeCloseTo(grad, 5);
    expect(r.metrics['actor/pg_clipfrac']).toBeCloseTo(clipfrac, 5);
    expect(r.metrics['actor/pg_clipfrac_lower']).toBeCloseTo(lower, 5);
  });

  it('vanilla: clip_ratio_high widens the upper side only', async () => {
    const r = await onePair(lossFor({ clip_ratio_high: 0.28 }), [Math.log(1.25)], [0], [1]);
    expect(r.loss).toBeCloseTo(-1.25, 5);
  });

  it('gspo: the sequence log-ratio is clamped at 10, beyond which there is no gradient', async () => {
    const r = await onePair(lossFor({}, { loss_mode: 'gspo' }), [12, 12], [0, 0], [-1, -1]);
    expect(r.loss / Math.exp(10)).toBeCloseTo(1, 5);
    expect(r.grad).toEqual([0, 0]);
  });

  it('cispo: the clipped ratio is detached, so the gradient is -clip(r) A where the ratio is clipped', async () => {
    const r = await onePair(lossFor({}, { loss_mode: 'cispo' }), [Math.log(2)], [0], [1]);
    expect(r.grad[0]).toBeCloseTo(-1.2, 5);
    expect(r.metrics['actor/pg_clipfrac']).toBeCloseTo(1, 5);
  });

  it('sapo: on-policy the gate gradient is -A whatever tau (4 sigmoid(0)(1 - sigmoid(0)) = 1)', async () => {
    const r = await onePair(lossFor({ tau_pos: 7, tau_neg: 0.3 }, { loss_mode: 'sapo' }), [-1, -1], [-1, -1], [2, -3]);
    expect(r.grad[0]).toBeCloseTo(-2 / 2, 5);
    expect(r.grad[1]).toBeCloseTo(3 / 2, 5);
  });

  it('clip_cov: clip_num = max(int(ratio * tokens), 1) in double precision, as Python computes it', () => {
    expect(clipCovCount(0.0002, 7)).toBe(1);
    expect(clipCovCount(0.3, 7)).toBe(2);
    // Python int(0.29 * 100) is 28: the product is 28.999999999999996.
    expect(clipCovCount(0.29, 100)).toBe(28);
  });
});

describe('filler rows (a batch padded to a compiled shape) do not count as sequences', () => {
  // Three pairs are packed into four rows; each per-row statistic must equal the one over the three pairs alone.
  const rng = createRng(11);
  const lengths = [3, 5, 2];
  const rand = (lo: number, hi: number) => lengths.map((n) => Array.from({ length: n }, () => lo + (hi - lo) * rng.next()));
  const old = rand(-3, -0.5);
  const logp = old.map((row) => row.map((v) => v + (rng.next() - 0.5)));
  const adv = rand(-1, 1);
  const batchOf = (rows: number[]): [TrainBatch, Float32Array[]] => [
    {
      pairs: rows.map((i) => ({ prompt: [1], response: Array.from({ length: lengths[i] as number }, () => 2) })),
      inputs: {
        old_logprobs: rows.map((i) => old[i] as number[]),
        advantages: rows.map((i) => adv[i] as number[]),
        response_mask: rows.map((i) => (old[i] as number[]).map(() => 1)),
      },
    },
    rows.map((i) => Float32Array.from(logp[i] as number[])),
  ];
  const run = async (loss: ReturnType<typeof lossFor>, rows: number[]) => {
    const [batch, lp] = batchOf(rows);
    return lossOnLeaves(loss, batch, { logprobs: lp, entropy: lp.map((l) => new Float32Array(l.length)) });
  };
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  it('geo_mean: the loss is the mean over the batch rows', async () => {
    const loss = lossFor({}, { loss_mode: 'geo_mean' });
    const all = await run(loss, [0, 1, 2]);
    const singles = await Promise.all([0, 1, 2].map((i) => run(loss, [i])));
    expect(all.loss).toBeCloseTo(mean(singles.map((s) => s.loss)), 5);
  });

  it('bypass_mode: the rollout_corr sequence metrics run over the batch rows', async () => {
    const loss = lossFor(
      {},
      {
        loss_mode: 'bypass_mode',
        rollout_correction: { rollout_is: 'sequence', rollout_is_threshold: 5, rollout_rs: 'seq_mean_k3', rollout_rs_threshold: 10, loss_type: 'reinforce' },
      },
    );
    const all = (await run(loss, [0, 1, 2])).metrics;
    const singles = (await Promise.all([0, 1, 2].map((i) => run(loss, [i])))).map((s) => s.metrics);
    const each = (k: string) => singles.map((s) => s[`rollout_corr/${k}`] as number);
    const at = (k: string) => all[`rollout_corr/${k}`] as number;
    for (const k of [
      'training_ppl',
      'rollout_log_ppl',
      'log_ppl_diff',
      'chi2_seq',
      'rollout_is_seq_mean',
      'rollout_is_ratio_fraction_high',
      'rollout_rs_seq_masked_fraction',
    ]) {
      expect(at(k), k).toBeCloseTo(mean(each(k)), 5);
    }
    for (const k of ['log_ppl_diff_max', 'rollout_is_max', 'rollout_is_seq_max']) expect(at(k), k).toBeCloseTo(Math.max(...each(k)), 5);
    for (const k of ['log_ppl_diff_min', 'rollout_is_min', 'rollout_is_seq_min']) expect(at(k), k).toBeCloseTo(Math.min(...each(k)), 5);
  });
});
