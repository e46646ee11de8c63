// The policy worker's compute port: what an engine that holds trainable
// weights does. The embedded jax-js engine (PolicyTrainer) and the PyTorch
// engine (TorchTrainer, a child process) implement it; the worker and the
// controller never know which one runs. Losses are not the engine's: an engine
// computes per-token log-probs, entropies and values, and the loss over them is
// the one TypeScript implementation (PolicyLoss) for every engine.
import type { PolicyWeights } from '../embedded-policy.ts';
import type { PairScores, TokenPair } from '../generation/score.ts';
import type { PackWidths } from '../generation/score.ts';
import type { PolicyLoss } from './loss-inputs.ts';
import type { TrainBatch } from './train-batch.ts';
import type { PolicyModel } from '../types.ts';

/** A version of an engine's weights that generates and scores (TrainingEngine.snapshot). */
export type PolicySnapshot = PolicyModel & { dispose(): void };

/** Loss and metrics of one accumulated micro-batch. */
export interface AccumulateResult {
  loss: number;
  metrics: Record<string, number>;
}

/** Outcome of an optimizer step. */
export interface StepResult {
  /** Global gradient norm before clipping (torch's clip_grad_norm_ return value). */
  gradNorm: number;
  /** True when the norm was not finite and the update was skipped (verl does the same). */
  skipped: boolean;
  /** Updates applied so far. */
  step: number;
}

/** The engine names a job can choose (verl's strategy keys map onto them). */
export type EngineKind = 'jax' | 'torch';

/** Trainable weights with their optimizer, on one engine. */
export interface TrainingEngine {
  readonly kind: EngineKind;
  /** Updates applied so far. */
  readonly updates: number;
  /** Set once the engine can no longer be used (an engine process that died); absent or null while it serves. */
  readonly failed?: Error | null;
  /** Computes `loss` on `batch` and adds `scale` x its gradient to the accumulator; `widths` pins the padded shape. */
  accumulate(batch: TrainBatch, loss: PolicyLoss, scale?: number, widths?: PackWidths): Promise<AccumulateResult>;
  /** Clips and applies the accumulated gradients with AdamW, then clears them; `lr` overrides the configured rate. */
  applyGradients(options?: { lr?: number }): Promise<StepResult>;
  /** Teacher-forced log-probs and entropies under the current weights. */
  score(pairs: readonly TokenPair[], widths?: PackWidths): Promise<Required<PairScores>[]>;
  /** Values of the state before each response token (a model with a value head). */
  values(pairs: readonly TokenPair[], widths?: PackWidths): Promise<Float32Array[]>;
  /**
   * The current weights as a policy that generates: the jax-js engines an immutable embedded copy, the torch engine
   * its child while no optimizer step has been applied since. The caller disposes it.
   */
  snapshot(version: string): Promise<PolicySnapshot>;
  /** Host copy of the weights, for saving or publishing. */
  exportWeights(version: string): Promise<PolicyWeights>;
  /** AdamW state in the shared checkpoint format (optimizer-state.ts): either engine reads the other's. */
  exportOptimizerState(): Promise<Uint8Array>;
  /** Restores {@link exportOptimizerState}'s bytes (resume). */
  importOptimizerState(bytes: Uint8Array): Promise<void>;
  dispose(): void;
}
