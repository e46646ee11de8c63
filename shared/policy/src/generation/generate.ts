import { AppError, ErrorCode } from '@rl/service-kit/core';
// Batched autoregressive generation. Each row stops on its own (stop ids, stop
// strings, its token budget); requests larger than the batch limit run in chunks.
import { decodeWithCache } from './decode-cached.ts';
import { decodeWithoutCache } from './decode-uncached.ts';
import { makeChunk } from './generation-chunk.ts';
import { checkTokenLists, type PolicyCore } from '../policy-core.ts';
import { resolveSampling, type ResolvedSampling } from './sampling-params.ts';
import type { Generation, SamplingParams, Tokenizer } from '../types.ts';

/** Options of {@link generateTokens}. */
export interface GenerateOptions {
  signal?: AbortSignal | undefined;
  /** Use the KV cache (false recomputes the whole sequence per token; for tests and benchmarks). @default true */
  kvCache?: boolean;
  /** Larger requests run in chunks of this many rows. @default 64 */
  maxBatchSize?: number;
  /** Seed source for requests without `seed`. */
  nextSeed: () => number;
}

/** A generation request's checks and its sampling with defaults applied (any engine): a bad prompt or parameter is a 400 naming it. */
export function prepareGeneration(
  tokenizer: Tokenizer,
  maxSeqLen: number,
  prompts: readonly number[][],
  params: SamplingParams,
  nextSeed: () => number,
): ResolvedSampling {
  const sampling = resolveSampling(params, tokenizer.eosIds, tokenizer.vocabSize, nextSeed);
  checkTokenLists(prompts, 'prompts', tokenizer.vocabSize, maxSeqLen, false);
  if (sampling.rowSeeds !== undefined && sampling.rowSeeds.length !== prompts.length) {
    throw new AppError(ErrorCode.InvalidParams, `params.rowSeeds: expected one seed per prompt (${prompts.length}), got ${sampling.rowSeeds.length}`);
  }
  return sampling;
}

/** Generates a continuation of every prompt; row `i` samples with a seed mixed from the request seed and `i`. */
export async function generateTokens(core: PolicyCore, prompts: readonly number[][], params: SamplingParams, options: GenerateOptions): Promise<Generation[]> {
  const sampling = prepareGeneration(core.tokenizer, core.config.maxSeqLen, prompts, params, options.nextSeed);
  const maxBatch = options.maxBatchSize ?? 64;
  const out: Generation[] = [];
  for (let start = 0; start < prompts.length; start += maxBatch) {
    const chunk = makeChunk(core, prompts.slice(start, start + maxBatch), sampling, start);
    if (chunk.rows.some((r) => !r.done)) {
      if (options.kvCache === false) await decodeWithoutCache(core, chunk, sampling, options.signal);
      else await decodeWithCache(core, chunk, sampling, options.signal);
    }
    for (const r of chunk.rows) {
      out.push({ tokenIds: r.ids, logprobs: r.logprobs, finishReason: r.state.finishReason ?? 'length', text: r.state.text, stopReason: r.state.stopReason });
    }
  }
  return out;
}
