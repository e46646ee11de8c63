// The one implementation of each verl loss (the jax-js modes every engine trains with) against
// verl's golden numbers: loss and metrics from the numpy re-statement, d loss / d (log-probs,
// entropies, values) from torch autograd over verl's formulas (core/algos/testdata/loss-golden.py
// writes loss-golden.json). Each case runs through lossOnLeaves, the path the torch engine takes.
import { lossOnLeaves, type LeafValues, type PolicyLoss, type TrainBatch } from '@rl/policy';
import { describe, expect, it } from 'vitest';
import golden from '../../core/algos/testdata/loss-golden.json' with { type: 'json' };
import { WorkerLossSpec } from '../worker-spec.ts';
import { aggregate } from './helpers.ts';
import { createPpoLoss, createValueLoss } from './index.ts';
import type { LossAggMode } from './modes.ts';

interface GoldenCase {
  kind: 'policy' | 'value' | 'aggregate';
  spec: Record<string, unknown>;
  inputs?: Record<string, number[]>;
  loss: number;
  metrics: Record<string, number>;
  dlogprobs?: number[];
  dentropy?: number[];
  dvalues?: number[];
  /** aggregate cases: their own [rows, cols] loss matrix (as the log-prob leaf) and mask. */
  rows?: number;
  cols?: number;
  loss_mat?: number[];
  mask?: number[];
}

const { fixture } = golden;
const CASES = Object.entries(golden.cases as unknown as Record<string, GoldenCase>);

/** Row-major [rows, cols] numbers as one array per pair. */
const perPair = (flat: readonly number[], rows = fixture.rows, cols = fixture.cols): number[][] =>
  Array.from({ length: rows }, (_, r) => flat.slice(r * cols, (r + 1) * cols));
const leaf = (flat: readonly number[], rows?: number, cols?: number): Float32Array[] => perPair(flat, rows, cols).map((r) => Float32Array.from(r));
// Token ids do not matter to a loss on leaves: only the response lengths (cols) do.
const pairs = (rows: number, cols: number) => Array.from({ length: rows }, () => ({ prompt: [1, 2], response: Array.from({ length: cols }, () => 3) }));

/** verl agg_loss alone: the log-prob leaf is the loss matrix. */
const aggregateLoss =
  (mode: LossAggMode, scale: number): PolicyLoss =>
  (t) => ({ loss: aggregate(t.logprobs, t.mask.mul(t.input('response_mask')), mode, scale) });

function lossOf(c: GoldenCase): PolicyLoss {
  if (c.kind === 'aggregate') return aggregateLoss(c.spec.loss_agg_mode as LossAggMode, c.spec.loss_scale_factor as number);
  const { cols } = fixture;
  if (c.kind === 'value') return createValueLoss({ cliprangeValue: c.spec.cliprangeValue as number, lossAggMode: 'token-mean', lossScaleFactor: cols });
  const { loss_mode, clip_cov_ratio, clip_cov_lb, clip_cov_ub, kl_cov_ratio, ppo_kl_coef, rollout_correction, ...actor } = c.spec;
  const policy = Object.fromEntries(
    Object.entries({ loss_mode, clip_cov_ratio, clip_cov_lb, clip_cov_ub, kl_cov_ratio, ppo_kl_coef, rollout_correction }).filter(([, v]) => v !== undefined),
  );
  // verl's defaults where a case sets nothing; numpy's agg_loss divides seq-mean-token-sum-norm by the padded width (cols).
  const defaults = { clip_ratio_low: 0.2, clip_ratio_high: 0.2, clip_ratio_c: 3, loss_agg_mode: 'token-mean', entropy_coeff: 0, use_kl_loss: false };
  const kl = { kl_loss_coef: 0.001, kl_loss_type: 'low_var_kl', tau_pos: 1, tau_neg: 1.05, loss_scale_factor: cols };
  return createPpoLoss(WorkerLossSpec.parse({ ...defaults, ...kl, ...actor, policy_loss: policy }));
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string, tol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  const bad: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as number;
    const e = expected[i] as number;
    if (!(Math.abs(a - e) <= tol * (1 + Math.abs(e)))) bad.push(`${what}[${i}]: jax-js ${a} vs verl ${e}`);
  }
  expect(bad).toEqual([]);
}

describe('verl losses (jax-js, through lossOnLeaves) against the golden numbers of core/algos/testdata', () => {
  it('has every golden case', () => {
    expect(CASES.length).toBe(30);
  });

  it.each(CASES)('%s: loss, metrics and gradients', async (_name, c) => {
    const rows = c.rows ?? fixture.rows;
    const cols = c.cols ?? fixture.cols;
    const inputs: Record<string, number[][]> = { response_mask: perPair(c.mask ?? fixture.response_mask, rows, cols) };
    if (c.kind === 'policy') {
      inputs.old_logprobs = perPair(fixture.old_logprobs);
      inputs.advantages = perPair(fixture.advantages);
    }
    for (const [k, v] of Object.entries(c.inputs ?? {})) inputs[k] = perPair(v);
    const batch: TrainBatch = { pairs: pairs(rows, cols), inputs };
    const leaves: LeafValues =
      c.kind === 'aggregate'
        ? { logprobs: leaf(c.loss_mat ?? [], rows, cols) }
        : { logprobs: leaf(fixture.logprobs), entropy: leaf(fixture.entropy), values: leaf(fixture.values) };
    const res = await lossOnLeaves(lossOf(c), batch, leaves);
    expect(res.loss).toBeCloseTo(c.loss, 5);
    const keys = Object.keys(c.metrics).sort();
    for (const k of keys) expect(res.metrics, k).toHaveProperty([k]);
    // The *_std metrics are sqrt(E[x^2] - E[x]^2): float32 cancellation near 0 allows ~1e-4.
    const exact = keys.filter((k) => !k.endsWith('_std'));
    expectClose(
      exact.map((k) => res.metrics[k] as number),
      exact.map((k) => c.metrics[k] as number),
      `metrics ${exact.join(',')}`,
    );
    const stds = keys.filter((k) => k.endsWith('_std'));
    expectClose(
      stds.map((k) => res.metrics[k] as number),
      stds.map((k) => c.metrics[k] as number),
      'std metrics',
      1e-4,
    );
    // Every rollout_corr metric verl reports, and no other.
    expect(
      Object.keys(res.metrics)
        .filter((k) => k.startsWith('rollout_corr/'))
        .sort(),
    ).toEqual(keys.filter((k) => k.startsWith('rollout_corr/')).sort());
    const flat = (g: Float32Array[] | undefined) => (g ?? []).flatMap((r) => Array.from(r));
    expectClose(flat(res.grads.logprobs), c.dlogprobs ?? new Array(rows * cols).fill(0), 'd/d logprobs');
    if (c.kind === 'aggregate') return;
    expectClose(flat(res.grads.entropy), c.dentropy ?? new Array(rows * cols).fill(0), 'd/d entropy');
    expectClose(flat(res.grads.values), c.dvalues ?? new Array(rows * cols).fill(0), 'd/d values');
  });
});
