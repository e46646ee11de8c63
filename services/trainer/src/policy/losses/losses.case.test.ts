import { createRng } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { computeActorLoss, POLICY_LOSS_MODES } from '../../core/algos/index.ts';
import { WorkerLossSpec } from '../worker-spec.ts';
import { CLIP_COV_KEYS, createPpoLoss } from './index.ts';
import { runJaxLoss, toActorLossConfig, type HostBatch } from './losses.test-support.ts';

const ROWS = 4;
const COLS = 6;
const N = ROWS * COLS;

/** Seeded batch: log-ratios in [-1, 1], one all-masked row (a filler row), keys for clip_cov. */
function batch(seed: number): HostBatch {
  const rng = createRng(seed);
  const u = (lo: number, hi: number) => Float32Array.from({ length: N }, () => lo + (hi - lo) * rng.next());
  const old = u(-3, -0.2);
  const shift = u(-1, 1);
  const mask = Float32Array.from({ length: N }, (_, i) => (i >= 3 * COLS ? 0 : rng.next() < 0.8 ? 1 : 0));
  mask[0] = 1;
  const keyRng = createRng(seed + 1000);
  return {
    rows: ROWS,
    cols: COLS,
    logprobs: old.map((o, i) => o + (shift[i] as number)),
    entropy: u(0, 2),
    inputs: {
      advantages: u(-2, 2),
      old_logprobs: old,
      response_mask: mask,
      ref_logprobs: u(-3, -0.2),
      [CLIP_COV_KEYS]: Float32Array.from({ length: N }, () => keyRng.next()),
    },
  };
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  const bad: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number;
    const e = expected[i] as number;
    if (!(Math.abs(a - e) <= 1e-5 + 1e-5 * Math.abs(e))) bad.push(`${what}[${i}] jax ${a} vs array ${e}`);
  }
  expect(bad).toEqual([]);
}

const AGG = ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;

/** Per-mode settings that make the mode do something on a 4 x 6 batch. */
const MODE_SETTINGS: Record<string, Record<string, unknown>> = {
  clip_cov: { clip_cov_ratio: 0.2, clip_cov_lb: -0.5, clip_cov_ub: 0.5 },
  kl_cov: { kl_cov_ratio: 0.25, ppo_kl_coef: 0.3 },
  bypass_mode: {
    rollout_correction: {
      rollout_is: 'sequence',
      rollout_is_threshold: 3,
      rollout_is_batch_normalize: true,
      rollout_rs: 'token_k1,seq_mean_k3,seq_max_k2',
      rollout_rs_threshold: '0.6_1.6,0.6,1.2',
      loss_type: 'reinforce',
    },
  },
};

const CASES = [
  ...POLICY_LOSS_MODES.flatMap((mode, i) => [
    { name: `${mode} / ${AGG[i % 4]}`, mode, agg: AGG[i % 4] as (typeof AGG)[number], kl: 'low_var_kl', extra: MODE_SETTINGS[mode] ?? {} },
  ]),
  {
    name: 'bypass_mode ppo_clip, token IS',
    mode: 'bypass_mode' as const,
    agg: 'token-mean' as const,
    kl: 'k1',
    extra: { rollout_correction: { rollout_is: 'token', rollout_is_threshold: 1.5, rollout_rs: 'seq_sum_k2,token_k3', rollout_rs_threshold: '4,0.3' } },
  },
  ...(['kl', 'abs', 'mse', 'k3+', 'low_var_kl+', 'k1+', 'abs+'] as const).map((kl, i) => ({
    name: `vanilla + KL loss ${kl}`,
    mode: 'vanilla' as const,
    agg: AGG[i % 4] as (typeof AGG)[number],
    kl,
    extra: {},
  })),
];

describe('jax-js createPpoLoss against the array implementation (core/algos computeActorLoss), every mode', () => {
  it.each(CASES)(
    '$name: loss, metrics and d loss / d logprobs agree',
    async ({ mode, agg, kl, extra }) => {
      const spec = WorkerLossSpec.parse({
        clip_ratio_low: 0.2,
        clip_ratio_high: 0.28,
        clip_ratio_c: 3,
        loss_agg_mode: agg,
        entropy_coeff: 0.01,
        use_kl_loss: true,
        kl_loss_coef: 0.05,
        kl_loss_type: kl,
        tau_pos: 1.3,
        tau_neg: 0.9,
        loss_scale_factor: 8,
        policy_loss: { loss_mode: mode, ...extra },
      });
      const seed = 17;
      const b = batch(seed);
      const jax = await runJaxLoss(createPpoLoss(spec), b);
      const i = b.inputs as Record<string, Float32Array>;
      const want = computeActorLoss({
        ...toActorLossConfig(spec),
        shape: { batchSize: ROWS, seqLen: COLS },
        logProb: b.logprobs,
        oldLogProb: i.old_logprobs as Float32Array,
        advantages: i.advantages as Float32Array,
        responseMask: i.response_mask as Float32Array,
        entropy: b.entropy,
        refLogProb: i.ref_logprobs as Float32Array,
        global: { lossScaleFactor: 8 },
        rng: createRng(seed + 1000),
      });
      const keys = Object.keys(want.metrics).sort();
      expect(Object.keys(jax.metrics).sort()).toEqual(keys);
      expectClose(
        [jax.loss, ...keys.map((k) => jax.metrics[k] as number)],
        [want.loss, ...keys.map((k) => want.metrics[k] as number)],
        `loss/metrics ${keys.join(',')}`,
      );
      expectClose(jax.dLogProb, want.dLogProb, 'dLogProb');
      // The data-dependent selections really select something on this batch.
      if (mode === 'clip_cov') expect(want.metrics['actor/pg_clipfrac']).toBeGreaterThan(0);
      if (mode === 'bypass_mode') expect(want.metrics['rollout_corr/rollout_rs_masked_fraction']).toBeGreaterThan(0);
    },
    60_000,
  );
});
