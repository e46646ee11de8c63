// Teacher-forced scoring of (prompt, response) pairs, in bucketed chunks.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { np, tree, type Tensor } from '../model/backend.ts';
import { batchBucket, packPairs, widthBucket, type PairBlock } from '../training/batch-layout.ts';
import type { HostRows } from './generation-chunk.ts';
import { checkTokenLists, type PolicyCore } from '../policy-core.ts';

/** A prompt and the response to score under it. */
export interface TokenPair {
  prompt: readonly number[];
  response: readonly number[];
}

/** Per-token log-probs and (when asked) entropies of one response. */
export interface PairScores {
  logprobs: Float32Array;
  entropy?: Float32Array;
}

/** Validates pairs for a model: non-empty prompts, ids in range, prompt + response within maxSeqLen. */
export function checkPairs(core: PolicyCore, pairs: readonly TokenPair[]): void {
  const { vocabSize, maxSeqLen } = core.config;
  checkTokenLists(
    pairs.map((p) => p.prompt),
    'prompts',
    vocabSize,
    maxSeqLen,
    false,
  );
  checkTokenLists(
    pairs.map((p) => p.response),
    'responses',
    vocabSize,
    maxSeqLen,
    true,
  );
  pairs.forEach((p, i) => {
    if (p.prompt.length + p.response.length > maxSeqLen) {
      throw new AppError(
        ErrorCode.BadRequest,
        `pairs[${i}]: prompt + response is ${p.prompt.length + p.response.length} tokens, more than the model's ${maxSeqLen}`,
      );
    }
  });
}

/**
 * Padded widths a caller asks for: a trainer that pins every batch of a job to
 * one shape compiles once (jax-js compiles per shape) instead of per bucket.
 * They are minimums: longer inputs still get their bucket.
 */
export interface PackWidths {
  promptWidth?: number | undefined;
  responseWidth?: number | undefined;
}

/** Packs pairs at bucketed widths (see widthBucket, at least `widths`) and rows (see batchBucket). */
export function packBucketed(pairs: readonly TokenPair[], padId: number, widths: PackWidths = {}): PairBlock {
  const promptWidth = Math.max(widthBucket(Math.max(...pairs.map((p) => p.prompt.length))), widths.promptWidth ?? 0);
  const responseWidth = Math.max(widthBucket(Math.max(1, ...pairs.map((p) => p.response.length))), widths.responseWidth ?? 0);
  return packPairs(pairs, batchBucket(pairs.length), promptWidth, responseWidth, padId);
}

/** Device copies of a packed block's inputs, in the order the score kernels take them. */
export function blockTensors(block: PairBlock): [Tensor, Tensor, Tensor, Tensor] {
  const { rows, promptWidth: p, responseWidth: r } = block;
  return [
    np.array(block.promptIds).reshape([rows, p]),
    np.array(block.responseIds).reshape([rows, r]),
    np.array(block.positions).reshape([rows, p + r]),
    np.array(block.keyMask).reshape([rows, p + r]),
  ];
}

function unpack(data: HostRows, pairs: readonly TokenPair[], width: number): Float32Array[] {
  return pairs.map((p, i) => Float32Array.from(data.subarray(i * width, i * width + p.response.length)));
}

/** Scores pairs in chunks of `maxBatchSize` rows. */
export async function scorePairs(
  core: PolicyCore,
  pairs: readonly TokenPair[],
  withEntropy: boolean,
  maxBatchSize = 64,
  widths: PackWidths = {},
): Promise<PairScores[]> {
  checkPairs(core, pairs);
  const out: PairScores[] = [];
  for (let start = 0; start < pairs.length; start += maxBatchSize) {
    const part = pairs.slice(start, start + maxBatchSize);
    const block = packBucketed(part, core.tokenizer.padId, widths);
    const inputs = blockTensors(block);
    if (withEntropy) {
      const res = core.kernels.scoreWithEntropy(tree.ref(core.params), ...inputs);
      const lp = unpack(await res.logprobs.data(), part, block.responseWidth);
      const ent = unpack(await res.entropy.data(), part, block.responseWidth);
      lp.forEach((logprobs, i) => out.push({ logprobs, entropy: ent[i] as Float32Array }));
    } else {
      const lp = core.kernels.score(tree.ref(core.params), ...inputs);
      for (const logprobs of unpack(await lp.data(), part, block.responseWidth)) out.push({ logprobs });
    }
  }
  return out;
}

/** A critic's values of the state before each response token, in chunks of `maxBatchSize` rows. */
export async function valuePairs(core: PolicyCore, pairs: readonly TokenPair[], maxBatchSize = 64, widths: PackWidths = {}): Promise<Float32Array[]> {
  if (!core.config.valueHead) throw new AppError(ErrorCode.BadRequest, 'values need a model with a value head (a critic)');
  checkPairs(core, pairs);
  const out: Float32Array[] = [];
  for (let start = 0; start < pairs.length; start += maxBatchSize) {
    const part = pairs.slice(start, start + maxBatchSize);
    const block = packBucketed(part, core.tokenizer.padId, widths);
    const v = core.kernels.values(tree.ref(core.params), ...blockTensors(block));
    out.push(...unpack(await v.data(), part, block.responseWidth));
  }
  return out;
}
