// LoRA training on the embedded jax-js engine: the base weights are frozen
// (and are the reference policy: no second copy), the adapters' A and B are
// the only trainable parameters, AdamW updates them alone. Each update merges
// W' = W + scaling * B A once for every targeted weight; a micro-batch's
// gradient is the model's gradient with respect to W' (the same compiled
// forward and backward as full training), carried to the adapters by the
// chain rule: dB = scaling * dW' A^T, dA = scaling * B^T dW'. (Merging inside
// the differentiated function instead lets jax-js fuse B A into every read of
// W', several times slower.) For the per-token outputs this equals
// W x + scaling * B (A x) up to rounding.
// Parameter names are the torch engine's (`model.layers.0.self_attn.q_proj.lora_A.weight`,
// and a critic's `score.weight` / `score.bias`), so optimizer state files are
// the same on both engines; adapters export in PEFT's format.
import type { OwnedFunction } from '@jax-js/jax';
import { AppError, ErrorCode, createRng } from '@rl/service-kit/core';
import { EmbeddedPolicy, type PolicyWeights, policyFromWeights } from '../embedded-policy.ts';
import { blockTensors, checkPairs, packBucketed, type PackWidths, type TokenPair } from '../generation/score.ts';
import { jit, np, type Tensor, tree } from '../model/backend.ts';
import { gaussian, type HostParams, type Params, toDevice, toHost } from '../model/params.ts';
import type { PolicyLoss } from '../training/loss-inputs.ts';
import { compileLossStep, stepResult, type LossStep } from '../training/loss-step.ts';
import {
  type AdamState,
  addTrees,
  createAdamW,
  clippedAdamwStep,
  type OptimizerConfig,
  type OptimizerConfigInput,
  parseOptimizerConfig,
  zeroAdamState,
} from '../training/optimizer.ts';
import { decodeAdamState, encodeAdamState } from '../training/optimizer-state.ts';
import { type TrainBatch, trainBatchInputs } from '../training/train-batch.ts';
import type { AccumulateResult, StepResult, TrainingEngine } from '../training/training-engine.ts';
import { type LoraSettings, loraScaling, VALUE_HEAD } from './adapter-config.ts';
import { adapterShapes, checkAdapter, type LoraAdapter, loraTargets, PEFT_PREFIX, resolvedTargets } from './lora-adapter.ts';

/** Options of {@link LoraTrainer.create}. */
export interface LoraTrainerOptions {
  /** Start from this adapter (e.g. one the torch engine saved) instead of a fresh one. */
  adapter?: LoraAdapter;
  /** Seed of a fresh adapter's A (and B with initLoraWeights false). @default 0 */
  seed?: number;
}

/** Trainable LoRA adapters on frozen base weights, with AdamW on the adapters only. */
export class LoraTrainer implements TrainingEngine {
  readonly kind = 'jax' as const;
  readonly optimizer: OptimizerConfig;
  /** The settings, targets resolved as exported adapters record them. */
  readonly settings: LoraSettings;
  readonly #base: EmbeddedPolicy;
  readonly #targets: string[];
  readonly #scaling: number;
  #adapters: Params;
  #adam: AdamState;
  #grads: Params | null = null;
  #merged: EmbeddedPolicy | null = null;
  readonly #adamw: ReturnType<typeof createAdamW>;
  readonly #merge: OwnedFunction<(base: Params, adapters: Params) => Params>;
  readonly #project: OwnedFunction<(weightGrads: Params, adapters: Params) => Params>;
  readonly #compiled = new Map<PolicyLoss, LossStep>();

  private constructor(base: EmbeddedPolicy, settings: LoraSettings, adapters: HostParams, optimizer: OptimizerConfig) {
    this.#base = base;
    this.optimizer = optimizer;
    this.#targets = loraTargets(base.config, settings, 'lora');
    this.settings = { ...settings, targetModules: resolvedTargets(base.config, settings, 'lora'), excludeModules: null };
    this.#scaling = loraScaling(settings);
    this.#adapters = toDevice(adapters);
    this.#adam = zeroAdamState(this.#adapters);
    this.#adamw = createAdamW(optimizer);
    const targets = this.#targets;
    const scaling = this.#scaling;
    // Only the merged weights come out (the rest of the base is shared, not copied).
    this.#merge = jit((b: Params, a: Params) => {
      const out: Params = {};
      for (const name of targets) out[`${name}.weight`] = mergedWeight(b, a, name, scaling);
      for (const [name, t] of Object.entries(b)) if (!(name in out)) t.dispose();
      for (const [name, t] of Object.entries(a)) if (!name.includes('.lora_')) t.dispose();
      return out;
    });
    this.#project = jit((g: Params, a: Params) => {
      const out: Params = {};
      for (const name of targets) {
        const dw = g[`${name}.weight`] as Tensor;
        const lA = a[`${name}.lora_A.weight`] as Tensor;
        const lB = a[`${name}.lora_B.weight`] as Tensor;
        out[`${name}.lora_B.weight`] = np.matmul(dw.ref, lA.transpose([1, 0])).mul(scaling);
        out[`${name}.lora_A.weight`] = np.matmul(lB.transpose([1, 0]), dw).mul(scaling);
      }
      for (const [name, t] of Object.entries(g)) if (!name.endsWith('_proj.weight')) t.dispose();
      for (const [name, t] of Object.entries(a)) if (!name.includes('.lora_')) t.dispose();
      return out;
    });
  }

  /**
   * Starts LoRA training on `weights` (frozen). A fresh adapter follows peft: A kaiming-uniform
   * U(-1/sqrt(in), 1/sqrt(in)), B zero, so the model starts as the base. A critic's value head trains whole.
   */
  static async create(weights: PolicyWeights, optimizer: OptimizerConfigInput, settings: LoraSettings, options: LoraTrainerOptions = {}): Promise<LoraTrainer> {
    const parsed = parseOptimizerConfig(optimizer);
    if (settings.loraDropout !== 0) {
      throw new AppError(
        ErrorCode.BadRequest,
        `lora_dropout: the jax engine trains LoRA without dropout (got ${settings.loraDropout}); set 0, or use the torch engine`,
      );
    }
    if (settings.valueHead !== weights.config.valueHead) {
      throw new AppError(
        ErrorCode.BadRequest,
        `lora: the adapter ${settings.valueHead ? 'carries' : 'lacks'} a value head and the model ${weights.config.valueHead ? 'has one' : 'has none'}`,
      );
    }
    let adapters: HostParams;
    if (options.adapter !== undefined) {
      checkAdapter(weights.config, options.adapter, 'lora');
      adapters = fromPeftNames(options.adapter.tensors);
    } else {
      adapters = freshAdapters(weights, settings, options.seed ?? 0);
    }
    return new LoraTrainer(await policyFromWeights(weights), settings, adapters, parsed);
  }

  /** Updates applied so far. */
  get updates(): number {
    return this.#adam.step;
  }

  /** The base weights with the adapters off: the reference policy (shares the trainer's memory; dispose it when done). */
  reference(version: string): EmbeddedPolicy {
    const b = this.#base;
    return new EmbeddedPolicy(version, b.config, b.tokenizer, tree.ref(b.params), b.kernels.retain());
  }

  /** The merged weights (W + scaling B A) as an immutable policy for generation and scoring; dispose it when done. */
  async snapshot(version: string): Promise<EmbeddedPolicy> {
    const m = this.#current();
    return new EmbeddedPolicy(version, m.config, m.tokenizer, tree.ref(m.params), m.kernels.retain());
  }

  async accumulate(batch: TrainBatch, loss: PolicyLoss, scale = 1, widths: PackWidths = {}): Promise<AccumulateResult> {
    const b = this.#base;
    checkPairs(b, batch.pairs);
    if (batch.pairs.length === 0) throw new AppError(ErrorCode.BadRequest, 'batch.pairs is empty');
    const block = packBucketed(batch.pairs, b.tokenizer.padId, widths);
    const inputs = trainBatchInputs(batch, block);
    const [prompt, response, positions, keyMask] = blockTensors(block);
    const mask = np.array(block.responseMask).reshape([block.rows, block.responseWidth]);
    const out = this.#compile(loss)(tree.ref(this.#current().params), prompt, response, positions, keyMask, mask, inputs, np.array(scale));
    const head = this.settings.valueHead ? [`${VALUE_HEAD}.weight`, `${VALUE_HEAD}.bias`] : [];
    const wanted = new Set([...this.#targets.map((t) => `${t}.weight`), ...head]);
    const weightGrads: Params = {};
    for (const [name, t] of Object.entries(out.grads)) {
      if (wanted.has(name)) weightGrads[name] = t;
      else t.dispose();
    }
    const grads = this.#project(tree.ref(weightGrads), tree.ref(this.#adapters));
    for (const name of head) grads[name] = weightGrads[name] as Tensor;
    for (const [name, t] of Object.entries(weightGrads)) if (!head.includes(name)) t.dispose();
    this.#grads = this.#grads === null ? grads : addTrees(this.#grads, grads);
    return stepResult(out, scale);
  }

  async applyGradients(options: { lr?: number } = {}): Promise<StepResult> {
    const grads = this.#grads;
    if (grads === null) throw new AppError(ErrorCode.BadRequest, 'no gradients accumulated');
    this.#grads = null;
    const out = await clippedAdamwStep(this.#adamw, this.optimizer, tree.ref(this.#adapters), grads, this.#adam, options.lr);
    if (out.skipped) return { gradNorm: out.gradNorm, skipped: true, step: this.#adam.step };
    tree.dispose(this.#adapters);
    this.#adapters = out.params;
    this.#adam = out.state;
    this.#merged?.dispose();
    this.#merged = null;
    return { gradNorm: out.gradNorm, skipped: false, step: out.state.step };
  }

  /** accumulate() then applyGradients() on one batch. */
  async step(batch: TrainBatch, loss: PolicyLoss, options: { lr?: number } = {}): Promise<AccumulateResult & StepResult> {
    const res = await this.accumulate(batch, loss);
    return { ...res, ...(await this.applyGradients(options)) };
  }

  /** Log-probs and entropies under the merged weights. */
  score(pairs: readonly TokenPair[], widths: PackWidths = {}) {
    return this.#current().score(pairs, widths);
  }

  /** Values under the merged weights (a critic). */
  values(pairs: readonly TokenPair[], widths: PackWidths = {}): Promise<Float32Array[]> {
    return this.#current().values(pairs, widths);
  }

  /** Host copy of the merged weights (a full model, for saving or publishing whole). */
  exportWeights(version: string): Promise<PolicyWeights> {
    return this.#current().exportWeights(version);
  }

  /** The adapter in PEFT's names (for writeAdapterDir: what vLLM and peft load). */
  async exportAdapter(baseModel: string | null = null): Promise<LoraAdapter> {
    const host = await toHost(this.#adapters);
    const tensors: HostParams = {};
    for (const [name, t] of Object.entries(host)) tensors[`${PEFT_PREFIX}${name}`] = t;
    return { settings: { ...this.settings, baseModel }, tensors };
  }

  /** AdamW state of the adapters (tensors `m.<name>`, `v.<name>` under the torch engine's parameter names). */
  exportOptimizerState(): Promise<Uint8Array> {
    return encodeAdamState(this.#adam);
  }

  async importOptimizerState(bytes: Uint8Array): Promise<void> {
    const next = decodeAdamState(bytes, this.#adapters);
    tree.dispose({ m: this.#adam.m, v: this.#adam.v });
    this.#adam = next;
  }

  dispose(): void {
    tree.dispose({ m: this.#adam.m, v: this.#adam.v, a: this.#adapters });
    if (this.#grads !== null) tree.dispose(this.#grads);
    this.#grads = null;
    this.#merged?.dispose();
    this.#merged = null;
    this.#base.dispose();
    this.#adamw.dispose();
    this.#merge.dispose();
    this.#project.dispose();
    for (const f of this.#compiled.values()) f.dispose();
    this.#compiled.clear();
  }

  /** The merged policy of the current adapters, built once per update. */
  #current(): EmbeddedPolicy {
    if (this.#merged === null) {
      const b = this.#base;
      const changed = this.#merge(tree.ref(b.params), tree.ref(this.#adapters));
      const params: Params = {};
      for (const [name, t] of Object.entries(b.params)) params[name] = changed[name] ?? (this.#adapters[name] ?? t).ref;
      this.#merged = new EmbeddedPolicy(b.version, b.config, b.tokenizer, params, b.kernels.retain());
    }
    return this.#merged;
  }

  /**
   * The loss's gradient with respect to every (merged) weight, compiled once per loss: the same step as full
   * training. The caller keeps the targeted weights' and a critic head's gradients; dropping the others inside the
   * compiled function made it about twice as slow (jax-js 0.1).
   */
  #compile(loss: PolicyLoss): LossStep {
    let f = this.#compiled.get(loss);
    if (f === undefined) {
      f = compileLossStep(this.#base.config, loss);
      this.#compiled.set(loss, f);
    }
    return f;
  }
}

/** W + scaling B A of module `name` (consumes W, A and B). */
function mergedWeight(base: Params, adapters: Params, name: string, scaling: number): Tensor {
  const delta = np.matmul(adapters[`${name}.lora_B.weight`] as Tensor, adapters[`${name}.lora_A.weight`] as Tensor).mul(scaling);
  return (base[`${name}.weight`] as Tensor).add(delta);
}

/** PEFT-named adapter tensors -> the engines' parameter names. */
function fromPeftNames(tensors: HostParams): HostParams {
  const out: HostParams = {};
  for (const [name, t] of Object.entries(tensors)) out[name.slice(PEFT_PREFIX.length)] = { shape: [...t.shape], data: Float32Array.from(t.data) };
  return out;
}

/** peft's default init: A kaiming-uniform(a=sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)); B zero (also kaiming-uniform with initLoraWeights false, N(0, 1/r) A with 'gaussian'); the value head from the base. */
function freshAdapters(weights: PolicyWeights, settings: LoraSettings, seed: number): HostParams {
  const rng = createRng(seed);
  const out: HostParams = {};
  for (const [peftName, shape] of adapterShapes(weights.config, settings, 'lora')) {
    const name = peftName.slice(PEFT_PREFIX.length);
    const size = shape.reduce((a, b) => a * b, 1);
    if (name.startsWith(`${VALUE_HEAD}.`)) {
      out[name] = { shape, data: Float32Array.from((weights.params[name] as { data: Float32Array }).data) };
      continue;
    }
    const data = new Float32Array(size);
    const isA = name.endsWith('.lora_A.weight');
    if (isA && settings.initLoraWeights === 'gaussian') for (let i = 0; i < size; i++) data[i] = gaussian(rng) / settings.r;
    else if (isA || settings.initLoraWeights === false) {
      const bound = 1 / Math.sqrt(shape[1] as number);
      for (let i = 0; i < size; i++) data[i] = (rng.next() * 2 - 1) * bound;
    }
    out[name] = { shape, data };
  }
  return out;
}
