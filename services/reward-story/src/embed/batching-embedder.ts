import { AppError, ErrorCode, MicroBatcher } from '@rl/service-kit';
import { LRUCache } from 'lru-cache';
import type { Embedder } from '../core/embedder.ts';
import type { BatchEmbedFn } from './onnx-batch-runner.ts';

/** Options of {@link createBatchingEmbedder}. */
export interface BatchingEmbedderOptions {
  modelId: string;
  dim: number;
  /** Embeds one batch (one model run). */
  runBatch: BatchEmbedFn;
  /** Most texts in one model run. @default 32 */
  maxBatch?: number;
  /** How long a lone request waits for others to share its run. @default 2 */
  batchWindowMs?: number;
  /** Texts whose vectors are kept (LRU); 0 disables the cache. @default 4096 */
  cacheEntries?: number;
  /** Called once by `close()` after the batcher stops (e.g. to release the session). */
  onClose?: () => Promise<void>;
}

/** An {@link Embedder} that can be shut down. */
export interface ClosableEmbedder extends Embedder {
  /** Rejects queued work with `unavailable` and frees the model. */
  close(): Promise<void>;
}

/** Defaults of {@link BatchingEmbedderOptions}. */
export const DEFAULT_CACHE_ENTRIES = 4096;

/**
 * Wraps a batch function with an LRU cache and a micro-batcher: a request
 * looks its texts up first, then sends each distinct missing text once into
 * the shared queue. Returned vectors are fresh copies, so callers may modify
 * them without touching the cache.
 */
export function createBatchingEmbedder(options: BatchingEmbedderOptions): ClosableEmbedder {
  const { modelId, dim, runBatch, maxBatch, batchWindowMs, cacheEntries = DEFAULT_CACHE_ENTRIES, onClose } = options;
  if (!Number.isInteger(cacheEntries) || cacheEntries < 0) throw new RangeError(`cacheEntries must be a non-negative integer, got ${cacheEntries}`);
  // lru-cache needs max >= 1: a size of 0 means no cache at all.
  const cache = cacheEntries === 0 ? undefined : new LRUCache<string, Float32Array>({ max: cacheEntries });
  const batcher = new MicroBatcher<string, Float32Array>({
    run: runBatch,
    ...(maxBatch === undefined ? {} : { maxBatch }),
    ...(batchWindowMs === undefined ? {} : { windowMs: batchWindowMs }),
  });
  let closing: Promise<void> | undefined;

  async function embed(texts: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    opts.signal?.throwIfAborted();
    const out = new Array<Float32Array>(texts.length);
    const missing = new Map<string, number[]>();
    texts.forEach((text, i) => {
      const hit = cache?.get(text);
      if (hit !== undefined) out[i] = hit.slice();
      else missing.set(text, [...(missing.get(text) ?? []), i]);
    });
    if (missing.size > 0) {
      const keys = [...missing.keys()];
      const vectors = await batcher.submit(keys, { signal: opts.signal });
      keys.forEach((text, k) => {
        const vec = vectors[k]!;
        if (vec.length !== dim) {
          throw new AppError(ErrorCode.Internal, `embedding of length ${vec.length}, model ${modelId} has dim ${dim}`);
        }
        cache?.set(text, vec);
        for (const i of missing.get(text)!) out[i] = vec.slice();
      });
    }
    return out;
  }

  return {
    modelId,
    dim,
    embed,
    close() {
      closing ??= (async () => {
        batcher.close();
        await onClose?.();
      })();
      return closing;
    },
  };
}
