// The training side of the embedded policy: gradients of a caller-supplied
// loss over per-token log-probs, accumulated over micro-batches, then one
// AdamW step. The trainer's weights change; generation uses immutable
// snapshots of them (snapshot()).
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { np, tree } from '../model/backend.ts';
import { EmbeddedPolicy, policyFromWeights, type PolicyWeights } from '../embedded-policy.ts';
import type { PolicyLoss } from './loss-inputs.ts';
import { compileLossStep, stepResult, type LossStep } from './loss-step.ts';
import {
  addTrees,
  createAdamW,
  clippedAdamwStep,
  parseOptimizerConfig,
  zeroAdamState,
  type AdamState,
  type OptimizerConfig,
  type OptimizerConfigInput,
} from './optimizer.ts';
import { decodeAdamState, encodeAdamState } from './optimizer-state.ts';
import type { Params } from '../model/params.ts';
import { blockTensors, checkPairs, packBucketed, type PackWidths, type TokenPair } from '../generation/score.ts';
import { trainBatchInputs, type TrainBatch } from './train-batch.ts';
import type { AccumulateResult, StepResult, TrainingEngine } from './training-engine.ts';

/** The embedded jax-js engine: owns trainable weights and AdamW state. */
export class PolicyTrainer implements TrainingEngine {
  readonly kind = 'jax' as const;
  readonly optimizer: OptimizerConfig;
  #model: EmbeddedPolicy;
  #adam: AdamState;
  #grads: Params | null = null;
  readonly #adamw: ReturnType<typeof createAdamW>;
  readonly #compiled = new WeakMap<PolicyLoss, LossStep>();

  private constructor(model: EmbeddedPolicy, optimizer: OptimizerConfig) {
    this.#model = model;
    this.optimizer = optimizer;
    this.#adam = zeroAdamState(model.params);
    this.#adamw = createAdamW(optimizer);
  }

  /** Starts training from `weights` (the trainer keeps its own device copy). */
  static async create(weights: PolicyWeights, optimizer: OptimizerConfigInput): Promise<PolicyTrainer> {
    return new PolicyTrainer(await policyFromWeights(weights), parseOptimizerConfig(optimizer));
  }

  /** The current weights as an immutable policy for generation and scoring (shares memory; dispose it when done). */
  async snapshot(version: string): Promise<EmbeddedPolicy> {
    const m = this.#model;
    return new EmbeddedPolicy(version, m.config, m.tokenizer, tree.ref(m.params), m.kernels.retain());
  }

  /** Updates applied so far. */
  get updates(): number {
    return this.#adam.step;
  }

  /** Computes the loss on `batch` and adds `scale` x its gradient to the accumulator (verl scales by 1 / micro-batches); `widths` pins the padded shape. */
  async accumulate(batch: TrainBatch, loss: PolicyLoss, scale = 1, widths: PackWidths = {}): Promise<AccumulateResult> {
    const m = this.#model;
    checkPairs(m, batch.pairs);
    if (batch.pairs.length === 0) throw new AppError(ErrorCode.BadRequest, 'batch.pairs is empty');
    const block = packBucketed(batch.pairs, m.tokenizer.padId, widths);
    const inputs = trainBatchInputs(batch, block);
    const [prompt, response, positions, keyMask] = blockTensors(block);
    const mask = np.array(block.responseMask).reshape([block.rows, block.responseWidth]);
    const out = this.#compile(loss)(tree.ref(m.params), prompt, response, positions, keyMask, mask, inputs, np.array(scale));
    this.#grads = this.#grads === null ? out.grads : addTrees(this.#grads, out.grads);
    return stepResult(out, scale);
  }

  /** Clips and applies the accumulated gradients with AdamW, then clears them. `lr` overrides the configured rate (schedules). */
  async applyGradients(options: { lr?: number } = {}): Promise<StepResult> {
    const grads = this.#grads;
    if (grads === null) throw new AppError(ErrorCode.BadRequest, 'no gradients accumulated');
    this.#grads = null;
    const old = this.#model;
    const out = await clippedAdamwStep(this.#adamw, this.optimizer, tree.ref(old.params), grads, this.#adam, options.lr);
    if (out.skipped) return { gradNorm: out.gradNorm, skipped: true, step: this.#adam.step };
    this.#adam = out.state;
    this.#model = new EmbeddedPolicy(old.version, old.config, old.tokenizer, out.params, old.kernels.retain());
    old.dispose();
    return { gradNorm: out.gradNorm, skipped: false, step: out.state.step };
  }

  /** accumulate() then applyGradients() on one batch. */
  async step(batch: TrainBatch, loss: PolicyLoss, options: { lr?: number } = {}): Promise<AccumulateResult & StepResult> {
    const res = await this.accumulate(batch, loss);
    return { ...res, ...(await this.applyGradients(options)) };
  }

  /** Teacher-forced log-probs and entropies under the current weights (old log-probs for PPO). */
  score(pairs: readonly TokenPair[], widths: PackWidths = {}) {
    return this.#model.score(pairs, widths);
  }

  /** Values under the current weights (a model with a value head). */
  values(pairs: readonly TokenPair[], widths: PackWidths = {}): Promise<Float32Array[]> {
    return this.#model.values(pairs, widths);
  }

  /** Host copy of the weights, for saving or publishing. */
  exportWeights(version: string): Promise<PolicyWeights> {
    return this.#model.exportWeights(version);
  }

  /** AdamW state as safetensors bytes (for checkpoints). */
  exportOptimizerState(): Promise<Uint8Array> {
    return encodeAdamState(this.#adam);
  }

  /** Restores AdamW state written by {@link exportOptimizerState} (resume); it must match this model's parameters. */
  async importOptimizerState(bytes: Uint8Array): Promise<void> {
    const next = decodeAdamState(bytes, this.#model.params);
    tree.dispose({ m: this.#adam.m, v: this.#adam.v });
    this.#adam = next;
  }

  /** Frees weights, moments, pending gradients and compiled steps. */
  dispose(): void {
    tree.dispose({ m: this.#adam.m, v: this.#adam.v });
    if (this.#grads !== null) tree.dispose(this.#grads);
    this.#grads = null;
    this.#model.dispose();
    this.#adamw.dispose();
  }

  #compile(loss: PolicyLoss): LossStep {
    let f = this.#compiled.get(loss);
    if (f === undefined) {
      f = compileLossStep(this.#model.config, loss);
      this.#compiled.set(loss, f);
    }
    return f;
  }
}
