import type { Tensor } from '@rl/policy';
import type { WorkerLossSpec } from '../worker-spec.ts';

/** The job's loss settings (WorkerSpec.loss, parsed): hyper-parameters become closure constants. */
export type PpoLossConfig = WorkerLossSpec;

/** What a policy-loss mode reads; every getter hands out a fresh reference the mode owns. */
export interface PgContext {
  /** Differentiable log-probs of the policy being trained, [B, R]. */
  readonly logp: Tensor;
  /** Old (rollout, in bypass mode) log-probs, [B, R]. */
  readonly old: Tensor;
  readonly adv: Tensor;
  /** 1 on response tokens that count (padding and response_mask 0 excluded). */
  readonly mask: Tensor;
  /**
   * [B]: 1 on the batch's rows, 0 on the filler rows that pad it to a compiled shape. verl's
   * per-row means (geo_mean's loss, the rollout_corr sequence metrics) run over these rows only.
   */
  readonly rows: Tensor;
  /** Another per-token input of the batch (e.g. clip_cov_keys). */
  input(name: string): Tensor;
  /** Whether the batch supplied that input. */
  hasInput(name: string): boolean;
}

/** A mode's scalar loss and its verl metrics (actor/*, rollout_corr/*). */
export interface PgResult {
  readonly loss: Tensor;
  readonly metrics: Record<string, Tensor>;
}

/** A policy-loss mode compiled for one job's settings (verl `PolicyLossFn`). */
export type PgLoss = (ctx: PgContext) => PgResult;
