// The PyTorch engine's training side: the PolicyTrainer surface over a torch
// child process (torch-engine.ts). A micro-batch is one forward in the child
// (per-token log-probs and entropies, or a critic's values, with the autograd
// graph kept there), the loss and its gradient with respect to those leaves
// here (lossOnLeaves: the one implementation of each loss, shared with the
// jax-js engine), and one backward in the child. Tensors cross as binary
// frames; the weights and the AdamW state cross as safetensors bytes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { PolicyWeights } from '../embedded-policy.ts';
import type { PackWidths, PairScores, TokenPair } from '../generation/score.ts';
import { parseHfConfig } from '../hf/hf-config.ts';
import { CONFIG_FILE, isModelDir, saveModelDir } from '../hf/model-dir.ts';
import type { ModelConfig } from '../model/model-config.ts';
import { checkHostParams } from '../model/params.ts';
import { createTokenizer, type PolicyTokenizer, type TokenizerConfig } from '../tokenizers/tokenizer.ts';
import { tokenizerFromDir } from '../tokenizers/tokenizer-dir.ts';
import { decodeSafetensors } from '../weights/safetensors.ts';
import type { PolicyLoss } from '../training/loss-inputs.ts';
import { type LeafValues, lossOnLeaves } from '../training/loss-on-leaves.ts';
import { type OptimizerConfig, type OptimizerConfigInput, parseOptimizerConfig } from '../training/optimizer.ts';
import type { TrainBatch } from '../training/train-batch.ts';
import type { AccumulateResult, StepResult, TrainingEngine } from '../training/training-engine.ts';
import { parseAdapterConfig } from '../lora/adapter-config.ts';
import { checkAdapter, type LoraAdapter } from '../lora/lora-adapter.ts';
import type { Frame, WireData } from './frames.ts';
import { type BoundaryCost, pairTensors, TorchEngine, type TorchEngineOptions } from './torch-engine.ts';
import { TorchPolicy } from './torch-policy.ts';

/** Options of {@link TorchTrainer}: the child's, and how it trains. */
export interface TorchTrainerOptions extends TorchEngineOptions {
  /** Recompute each layer's activations in the backward pass (verl's enable_gradient_checkpointing). @default false */
  gradientCheckpointing?: boolean;
  /** Tokens (rows x padded width) per forward pass inside the child; a larger micro-batch runs in parts. @default 16384 */
  maxTokens?: number;
  /** torch.compile the model when the child runs on CUDA (verl's use_torch_compile); not applied on the CPU. @default false */
  compile?: boolean;
  /** LoRA settings (PEFT's LoraConfig names: r, lora_alpha, target_modules, ...); the base is then frozen. */
  lora?: Record<string, unknown>;
  /** A PEFT adapter directory loaded onto the adapters `lora` makes (resuming LoRA training). */
  adapter?: string;
}

/** The wire names of the leaves (LeafValues' entropy travels as `entropies`, as the score op answers it). */
const WIRE = { logprobs: 'logprobs', entropy: 'entropies', values: 'values' } as const;
type Leaf = keyof typeof WIRE;

/** Trainable weights and AdamW state held by a torch child process. */
export class TorchTrainer implements TrainingEngine {
  readonly kind = 'torch' as const;
  readonly optimizer: OptimizerConfig;
  readonly #engine: TorchEngine;
  readonly #config: ModelConfig;
  readonly #tokenizer: TokenizerConfig;
  readonly #ownDir: string | null;
  #updates = 0;
  /** Optimizer steps that changed (or may have changed) the weights: a snapshot serves while this is what it was. */
  #weightChanges = 0;
  #tokenizerInstance: PolicyTokenizer | undefined;
  /** The last operation queued: a micro-batch is several requests (forward, backward), so operations run one after another. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(engine: TorchEngine, optimizer: OptimizerConfig, config: ModelConfig, tokenizer: TokenizerConfig, ownDir: string | null) {
    this.#engine = engine;
    this.optimizer = optimizer;
    this.#config = config;
    this.#tokenizer = tokenizer;
    this.#ownDir = ownDir;
  }

  /** Starts training from `weights` (written to a temporary model directory the child loads; removed on dispose). */
  static async create(weights: PolicyWeights, optimizer: OptimizerConfigInput, options: TorchTrainerOptions = {}): Promise<TorchTrainer> {
    const parsed = parseOptimizerConfig(optimizer);
    const parent = await mkdtemp(join(tmpdir(), 'rl-torch-trainer-'));
    try {
      await saveModelDir(join(parent, 'model'), weights);
      return await TorchTrainer.#start(join(parent, 'model'), parsed, weights.config, weights.tokenizer, parent, options);
    } catch (err) {
      await rm(parent, { recursive: true, force: true });
      throw err;
    }
  }

  /** Starts training from a Hugging Face model directory. */
  static async open(dir: string, optimizer: OptimizerConfigInput, options: TorchTrainerOptions = {}): Promise<TorchTrainer> {
    const parsed = parseOptimizerConfig(optimizer);
    const { config, tokenizer } = await configOfDir(dir);
    return TorchTrainer.#start(dir, parsed, config, tokenizer, null, options);
  }

  static async #start(
    dir: string,
    optimizer: OptimizerConfig,
    config: ModelConfig,
    tokenizer: TokenizerConfig,
    ownDir: string | null,
    options: TorchTrainerOptions,
  ): Promise<TorchTrainer> {
    const engine = await TorchEngine.start(options);
    try {
      await engine.open(dir, {
        train: true,
        optimizer: {
          lr: optimizer.lr,
          betas: optimizer.betas,
          eps: optimizer.eps,
          weight_decay: optimizer.weightDecay,
          max_grad_norm: optimizer.maxGradNorm,
        },
        gradient_checkpointing: options.gradientCheckpointing ?? false,
        ...(options.compile === true && engine.device.startsWith('cuda') && { compile: true }),
        ...(options.maxTokens !== undefined && { max_tokens: options.maxTokens }),
        ...(options.lora !== undefined && { lora: options.lora }),
        ...(options.adapter !== undefined && { adapter: options.adapter }),
      });
    } catch (err) {
      engine.close();
      throw err;
    }
    return new TorchTrainer(engine, optimizer, config, tokenizer, ownDir);
  }

  /** The child's process id. */
  get pid(): number | undefined {
    return this.#engine.pid;
  }

  /** The processes the child runs as (TorchEngineOptions.worldSize). */
  get worldSize(): number {
    return this.#engine.worldSize;
  }

  /** Updates applied so far. */
  get updates(): number {
    return this.#updates;
  }

  /** Why the child can no longer be used (it died, stopped answering, or was disposed); null while it serves. */
  get failed(): Error | null {
    return this.#engine.failed;
  }

  /** The boundary's cost per operation so far (wall time here against the child's own time, bytes each way). */
  boundaryCosts(): Record<string, BoundaryCost> {
    return this.#engine.boundaryCosts();
  }

  /**
   * Computes the loss on `batch` and adds `scale` x its gradient to the child's accumulator. The child packs by its
   * token budget, so `widths` (the jax-js engine's compiled shapes) does not apply.
   */
  accumulate(batch: TrainBatch, loss: PolicyLoss, scale = 1, _widths: PackWidths = {}): Promise<AccumulateResult> {
    return this.#exclusive(() => this.#accumulate(batch, loss, scale));
  }

  async #accumulate(batch: TrainBatch, loss: PolicyLoss, scale: number): Promise<AccumulateResult> {
    if (batch.pairs.length === 0) throw new AppError(ErrorCode.BadRequest, 'batch.pairs is empty');
    const leaves: Leaf[] = this.#config.valueHead ? ['values'] : ['logprobs', 'entropy'];
    const forward = await this.#engine.request(
      { op: 'forward', leaves: leaves.map((l) => WIRE[l]) },
      pairTensors(batch.pairs),
      `forward of ${batch.pairs.length} pairs`,
    );
    const values: Partial<LeafValues> = {};
    for (const leaf of leaves) values[leaf] = splitPerPair(floats(forward.tensors.get(WIRE[leaf]), WIRE[leaf], batch.pairs), batch.pairs);
    let out: Awaited<ReturnType<typeof lossOnLeaves>>;
    try {
      // A critic has no log-probs to give: lossOnLeaves differentiates the leaves it is given and refuses a loss that reads another.
      out = await lossOnLeaves(loss, batch, values as LeafValues, scale);
    } catch (err) {
      await this.#engine.request({ op: 'release' }, {}, 'releasing a forward');
      throw err;
    }
    const grads: Record<string, WireData> = {};
    for (const leaf of leaves) grads[WIRE[leaf]] = concat(out.grads[leaf] as Float32Array[]);
    await this.#engine.request({ op: 'backward' }, grads, `backward of ${batch.pairs.length} pairs`);
    return { loss: out.loss, metrics: out.metrics };
  }

  /** Clips and applies the accumulated gradients with AdamW, then clears them. `lr` overrides the configured rate (schedules). */
  applyGradients(options: { lr?: number } = {}): Promise<StepResult> {
    return this.#exclusive(() => this.#applyGradients(options));
  }

  async #applyGradients(options: { lr?: number }): Promise<StepResult> {
    let answer: Frame;
    try {
      answer = await this.#engine.request({ op: 'step', ...(options.lr !== undefined && { lr: options.lr }) }, {}, 'an optimizer step');
    } catch (err) {
      this.#weightChanges += 1; // a step that failed midway may have changed the weights
      throw err;
    }
    if (answer.header.skipped !== true) this.#weightChanges += 1;
    const norm = answer.tensors.get('grad_norm');
    if (!(norm instanceof Float32Array) || norm.length !== 1 || typeof answer.header.step !== 'number') {
      throw new AppError(ErrorCode.Internal, 'torch engine: the step answer holds no grad_norm or step');
    }
    this.#updates = answer.header.step;
    return { gradNorm: norm[0] as number, skipped: answer.header.skipped === true, step: answer.header.step };
  }

  /** accumulate() then applyGradients() on one batch. */
  async step(batch: TrainBatch, loss: PolicyLoss, options: { lr?: number } = {}): Promise<AccumulateResult & StepResult> {
    const res = await this.accumulate(batch, loss);
    return { ...res, ...(await this.applyGradients(options)) };
  }

  /** Teacher-forced log-probs and entropies under the current weights (no graph kept). */
  score(pairs: readonly TokenPair[], _widths: PackWidths = {}): Promise<Required<PairScores>[]> {
    return this.#exclusive(() => this.#score(pairs, true));
  }

  /** Log-probs and entropies of a LoRA model's base, the adapters off (the reference policy, no second copy). */
  scoreBase(pairs: readonly TokenPair[]): Promise<Required<PairScores>[]> {
    return this.#exclusive(() => this.#score(pairs, false));
  }

  async #score(pairs: readonly TokenPair[], adapters: boolean): Promise<Required<PairScores>[]> {
    const header = { op: 'score', leaves: ['logprobs', 'entropies'], ...(!adapters && { adapters: false }) };
    const answer = await this.#engine.request(header, pairTensors(pairs), `scoring ${pairs.length} pairs`);
    const logprobs = splitPerPair(floats(answer.tensors.get('logprobs'), 'logprobs', pairs), pairs);
    const entropy = splitPerPair(floats(answer.tensors.get('entropies'), 'entropies', pairs), pairs);
    return logprobs.map((lp, i) => ({ logprobs: lp, entropy: entropy[i] as Float32Array }));
  }

  /** The LoRA adapter in PEFT's names and settings (for writeAdapterDir or publishing), as the child's peft-format writer makes it. */
  exportAdapter(baseModel: string | null = null): Promise<LoraAdapter> {
    return this.#exclusive(async () => {
      const answer = await this.#engine.request({ op: 'adapter', base_model: baseModel }, {}, 'exporting the adapter');
      const bytes = answer.tensors.get('safetensors');
      if (!(bytes instanceof Uint8Array)) throw new AppError(ErrorCode.Internal, 'torch engine: the adapter answer holds no safetensors bytes');
      const adapter = {
        settings: parseAdapterConfig(answer.header.config, 'torch engine adapter_config'),
        tensors: decodeSafetensors(bytes, 'torch engine adapter').tensors,
      };
      checkAdapter(this.#config, adapter, 'torch engine adapter_config');
      return adapter;
    });
  }

  /** A critic's values of the state before each response token. */
  values(pairs: readonly TokenPair[], _widths: PackWidths = {}): Promise<Float32Array[]> {
    return this.#exclusive(async () => {
      if (!this.#config.valueHead) throw new AppError(ErrorCode.BadRequest, 'values asked of a model without a value head (not a critic)');
      return this.#engine.values(pairs);
    });
  }

  /**
   * The current weights as a policy that generates and scores in the child (no weights cross the pipe), usable
   * until the next optimizer step; the caller disposes it.
   */
  async snapshot(version: string): Promise<TorchPolicy> {
    const epoch = this.#weightChanges;
    const current = (doing: string) => {
      if (this.#weightChanges !== epoch) {
        throw new AppError(
          ErrorCode.Conflict,
          `torch engine: ${doing} policy ${version}: the weights have changed since (an optimizer step); take a new snapshot`,
        );
      }
    };
    this.#tokenizerInstance ??= createTokenizer(this.#tokenizer);
    return new TorchPolicy(version, this.#tokenizerInstance, this.#config.maxSeqLen, {
      generate: (prompts, settings, rowSeeds) =>
        this.#exclusive(() => {
          current('generating with');
          return this.#engine.generate(prompts, settings, rowSeeds);
        }),
      logprobs: (pairs) =>
        this.#exclusive(async () => {
          current('scoring with');
          return (await this.#score(pairs, true)).map((s) => s.logprobs);
        }),
    });
  }

  /** Host copy of the weights (F32, Hugging Face names), for saving or publishing. */
  exportWeights(version: string): Promise<PolicyWeights> {
    return this.#exclusive(async () => {
      const answer = await this.#engine.request({ op: 'weights' }, {}, 'exporting the weights');
      const bytes = answer.tensors.get('safetensors');
      if (!(bytes instanceof Uint8Array)) throw new AppError(ErrorCode.Internal, 'torch engine: the weights answer holds no safetensors bytes');
      const params = decodeSafetensors(bytes, 'torch engine weights').tensors;
      checkHostParams(this.#config, params, 'torch engine weights');
      return { version, config: this.#config, tokenizer: this.#tokenizer, params };
    });
  }

  /** Writes the current weights as a Hugging Face directory from the child itself (no weights cross the pipe). */
  saveModelDir(dir: string, version: string): Promise<void> {
    return this.#exclusive(async () => {
      await this.#engine.request({ op: 'save', path: dir, version }, {}, `saving ${dir}`);
    });
  }

  /** AdamW state as safetensors bytes in the jax-js engine's format (optimizer-state.ts): either engine resumes from the other's. */
  exportOptimizerState(): Promise<Uint8Array> {
    return this.#exclusive(async () => {
      const answer = await this.#engine.request({ op: 'save_optimizer' }, {}, 'exporting the optimizer state');
      const bytes = answer.tensors.get('state');
      if (!(bytes instanceof Uint8Array)) throw new AppError(ErrorCode.Internal, 'torch engine: the save_optimizer answer holds no state');
      return bytes;
    });
  }

  /** Restores AdamW state (resume); it must match this model's parameters name for name and shape for shape. */
  importOptimizerState(bytes: Uint8Array): Promise<void> {
    return this.#exclusive(async () => {
      const answer = await this.#engine.request({ op: 'load_optimizer' }, { state: bytes }, 'importing the optimizer state');
      this.#updates = Number(answer.header.step);
    });
  }

  #exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Ends the child; a temporary model directory goes with it. */
  dispose(): void {
    this.#engine.close();
    if (this.#ownDir !== null) void rm(this.#ownDir, { recursive: true, force: true });
  }
}

/**
 * The config and tokenizer a directory's exported weights travel with, read without its weights (the child reads
 * those; a real model's would be gigabytes here for nothing).
 */
async function configOfDir(dir: string): Promise<{ config: ModelConfig; tokenizer: TokenizerConfig }> {
  if (!(await isModelDir(dir))) throw new AppError(ErrorCode.NotFound, `${dir}: not a model directory (no ${CONFIG_FILE})`);
  const path = join(dir, CONFIG_FILE);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new AppError(ErrorCode.ValidationFailed, `${path}: (root): not valid JSON`);
  }
  const config = parseHfConfig(json, path);
  // A critic's checkpoint has no LM head (as loadModelDir reads it, and the child's model is built).
  return { config: config.valueHead ? { ...config, tieEmbeddings: true } : config, tokenizer: await tokenizerFromDir(dir) };
}

function floats(data: WireData | undefined, name: string, pairs: readonly TokenPair[]): Float32Array {
  const total = pairs.reduce((n, p) => n + p.response.length, 0);
  if (!(data instanceof Float32Array) || data.length !== total)
    throw new AppError(ErrorCode.Internal, `torch engine: the answer does not hold ${total} ${name}`);
  return data;
}

function splitPerPair(flat: Float32Array, pairs: readonly TokenPair[]): Float32Array[] {
  let at = 0;
  return pairs.map((p) => {
    const part = flat.subarray(at, at + p.response.length);
    at += p.response.length;
    return part;
  });
}

function concat(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
