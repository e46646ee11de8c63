// Per-chunk generation state shared by the cached and uncached decoders.
import { createRng, type Rng } from '@rl/service-kit/core';
import { batchBucket, leftPad, widthBucket, type PaddedBlock } from '../training/batch-layout.ts';
import { rowSeed, type PolicyCore } from '../policy-core.ts';
import { sampleToken } from './sampling.ts';
import type { ResolvedSampling } from './sampling-params.ts';
import { StopChecker } from './stop-checker.ts';

/** Rows of one chunk: their outputs, RNGs and prompt lengths, and the padded prompt block. */
export interface Chunk {
  rows: StopChecker[];
  rngs: Rng[];
  lengths: number[];
  block: PaddedBlock;
  /** Columns of the KV cache: padded prompt width + the longest budget, rounded up. */
  capacity: number;
}

/** Tokens a row may generate: max_tokens, cut where the sequence would pass the model's `maxSeqLen` (the row then ends with length). */
export function rowBudget(s: ResolvedSampling, maxSeqLen: number, promptLength: number): number {
  return Math.min(s.maxTokens, maxSeqLen - promptLength);
}

/** The seed row `row` of a request samples from: its own from rowSeeds, else mixed from the request's seed. */
export function seedOfRow(s: ResolvedSampling, row: number): number {
  return s.rowSeeds?.[row] ?? rowSeed(s.seed, row);
}

/** Lays out `prompts` (rows `firstRow`.. of the request) for decoding. */
export function makeChunk(core: PolicyCore, prompts: readonly number[][], s: ResolvedSampling, firstRow: number): Chunk {
  const budgets = prompts.map((p) => rowBudget(s, core.config.maxSeqLen, p.length));
  const width = widthBucket(Math.max(...prompts.map((p) => p.length)));
  const steps = Math.max(0, ...budgets);
  return {
    rows: budgets.map((b) => new StopChecker(core.tokenizer, s.stopTokenIds, s.stop, b)),
    rngs: prompts.map((_, i) => createRng(seedOfRow(s, firstRow + i))),
    lengths: prompts.map((p) => p.length),
    block: leftPad(prompts, batchBucket(prompts.length), width, core.tokenizer.padId),
    capacity: widthBucket(width + steps, 16),
  };
}

/** Rows of logits copied to the host (any typed array `Tensor.data()` returns). */
export type HostRows = ArrayLike<number> & { subarray(begin: number, end: number): ArrayLike<number> };

/**
 * Samples the next token of every unfinished row from `logits` `[slots, V]`.
 * `slots[i]` is the chunk row in batch slot i (-1 for filler slots). Returns
 * each slot's token (a pad where nothing was sampled).
 */
export function sampleRows(chunk: Chunk, slots: readonly number[], logits: HostRows, vocab: number, s: ResolvedSampling, padId: number): number[] {
  return slots.map((r, slot) => {
    const row = chunk.rows[r];
    if (row === undefined || row.done) return padId;
    // A view, not a copy: copying each row into a JS array was 8% of generation time at batch 64.
    const { id, logprob } = sampleToken(logits.subarray(slot * vocab, (slot + 1) * vocab), s, chunk.rngs[r] as Rng);
    row.push(id, logprob);
    return id;
  });
}

/** Slot layout of a fresh chunk: row i in slot i, fillers after. */
export function initialSlots(chunk: Chunk): number[] {
  return Array.from({ length: chunk.block.rows }, (_, i) => (i < chunk.rows.length ? i : -1));
}

/** True when every row has finished. */
export function allDone(chunk: Chunk): boolean {
  return chunk.rows.every((r) => r.done);
}
