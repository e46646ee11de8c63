import { AppError, ErrorCode, createRng } from '@rl/service-kit/core';
import { ensureTensorBackend, tree } from './model/backend.ts';
import { generateTokens } from './generation/generate.ts';
import { createKernels, type Kernels } from './model/kernels.ts';
import { parseModelConfig, type ModelConfig, type ModelConfigInput } from './model/model-config.ts';
import { checkHostParams, initHostParams, toDevice, toHost, type HostParams, type Params } from './model/params.ts';
import type { PolicyCore } from './policy-core.ts';
import { scorePairs, valuePairs, type PackWidths, type PairScores, type TokenPair } from './generation/score.ts';
import { createTokenizer, type PolicyTokenizer, type TokenizerConfig } from './tokenizers/tokenizer.ts';
import type { Generation, PolicyModel, SamplingParams } from './types.ts';

/** A model's weights in host memory with everything needed to rebuild it; what a safetensors file holds. */
export interface PolicyWeights {
  version: string;
  config: ModelConfig;
  tokenizer: TokenizerConfig;
  params: HostParams;
}

/** Options of {@link EmbeddedPolicy} factories. */
export interface EmbeddedPolicyOptions {
  /** Seed of the stream that seeds requests without `seed`. @default 0 */
  seed?: number;
  /** Rows per forward pass; larger requests run in chunks. @default 64 */
  maxBatchSize?: number;
  /** Compiled kernels to reuse when their config matches (saves compiling on hot swap); the policy retains them. */
  kernels?: Kernels;
}

/**
 * The embedded transformer behind {@link PolicyModel}. Its weights never
 * change: a new version is a new instance (see ModelHandle for swapping), so
 * requests in flight always finish on the weights they started with.
 */
export class EmbeddedPolicy implements PolicyModel, PolicyCore {
  readonly version: string;
  readonly tokenizer: PolicyTokenizer;
  readonly config: ModelConfig;
  readonly maxSequenceLength: number;
  readonly kernels: Kernels;
  readonly #params: Params;
  readonly #maxBatchSize: number;
  readonly #seeds: () => number;
  #disposed = false;

  /** Takes ownership of `params` (device arrays) and of one user of `kernels`. */
  constructor(version: string, config: ModelConfig, tokenizer: PolicyTokenizer, params: Params, kernels: Kernels, options: EmbeddedPolicyOptions = {}) {
    this.version = version;
    this.config = config;
    this.tokenizer = tokenizer;
    this.maxSequenceLength = config.maxSeqLen;
    this.#params = params;
    this.kernels = kernels;
    this.#maxBatchSize = options.maxBatchSize ?? 64;
    const rng = createRng(options.seed ?? 0);
    this.#seeds = () => rng.int(0, 0x7fffffff);
  }

  /** Device weights; a reference the caller must not consume (use `tree.ref`). */
  get params(): Params {
    if (this.#disposed) throw new AppError(ErrorCode.Internal, `policy ${this.version} used after dispose`);
    return this.#params;
  }

  generate(prompts: readonly number[][], params: SamplingParams, signal?: AbortSignal): Promise<Generation[]> {
    return this.generateWith(prompts, params, { signal });
  }

  /** {@link generate} with the KV cache optional (off recomputes the sequence per token; for tests and benchmarks). */
  generateWith(prompts: readonly number[][], params: SamplingParams, options: { signal?: AbortSignal | undefined; kvCache?: boolean }): Promise<Generation[]> {
    return generateTokens(this, prompts, params, { ...options, maxBatchSize: this.#maxBatchSize, nextSeed: this.#seeds });
  }

  async logprobs(pairs: ReadonlyArray<{ prompt: readonly number[]; response: readonly number[] }>, widths: PackWidths = {}): Promise<Float32Array[]> {
    return (await scorePairs(this, pairs, false, this.#maxBatchSize, widths)).map((s) => s.logprobs);
  }

  /** Teacher-forced log-probs and per-token entropies of the distribution each response token was drawn from. */
  async score(pairs: readonly TokenPair[], widths: PackWidths = {}): Promise<Required<PairScores>[]> {
    return (await scorePairs(this, pairs, true, this.#maxBatchSize, widths)) as Required<PairScores>[];
  }

  /** A critic's value of the state before each response token (models with a value head). */
  async values(pairs: readonly TokenPair[], widths: PackWidths = {}): Promise<Float32Array[]> {
    return valuePairs(this, pairs, this.#maxBatchSize, widths);
  }

  /** Copies the weights to host memory (for saving or publishing). */
  async exportWeights(version = this.version): Promise<PolicyWeights> {
    return { version, config: this.config, tokenizer: this.tokenizer.config, params: await toHost(this.params) };
  }

  /** Frees the weights (and the kernels with their last user). Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    tree.dispose(this.#params);
    this.kernels.release();
  }
}

function kernelsFor(config: ModelConfig, options: EmbeddedPolicyOptions): Kernels {
  const k = options.kernels;
  return k !== undefined && JSON.stringify(k.config) === JSON.stringify(config) ? k.retain() : createKernels(config);
}

/** Builds a policy from host weights (validated against the config). */
export async function policyFromWeights(weights: PolicyWeights, options: EmbeddedPolicyOptions = {}): Promise<EmbeddedPolicy> {
  await ensureTensorBackend();
  const config = parseModelConfig(weights.config);
  const tokenizer = createTokenizer(weights.tokenizer);
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new AppError(ErrorCode.ValidationFailed, `model config: vocabSize ${config.vocabSize} is smaller than the tokenizer's ${tokenizer.vocabSize}`);
  }
  checkHostParams(config, weights.params);
  return new EmbeddedPolicy(weights.version, config, tokenizer, toDevice(weights.params), kernelsFor(config, options), options);
}

/** A randomly initialised policy (deterministic in `seed`); `config.vocabSize` defaults to the tokenizer's. */
export async function createRandomPolicy(
  args: {
    config: Omit<ModelConfigInput, 'vocabSize'> & { vocabSize?: number };
    tokenizer: TokenizerConfig;
    seed: number;
    version?: string;
  },
  options: EmbeddedPolicyOptions = {},
): Promise<EmbeddedPolicy> {
  const tokenizer = createTokenizer(args.tokenizer);
  const config = parseModelConfig({ ...args.config, vocabSize: args.config.vocabSize ?? tokenizer.vocabSize });
  return policyFromWeights({ version: args.version ?? 'init', config, tokenizer: tokenizer.config, params: initHostParams(config, args.seed) }, options);
}
