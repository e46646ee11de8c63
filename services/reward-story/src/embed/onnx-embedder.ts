import { AppError, DEFAULT_MAX_BATCH, ErrorCode } from '@rl/service-kit';
import { createBatchingEmbedder, type ClosableEmbedder } from './batching-embedder.ts';
import { readModelDir } from './model-dir.ts';
import { createOnnxBatchRunner, createOnnxTokenRunner, openOnnxSession, type TokenStatesFn } from './onnx-batch-runner.ts';
import { describeModelIo } from './onnx-io.ts';
import { createTokenEncoder } from './token-encoder.ts';

/** Options of {@link loadOnnxEmbedder}. */
export interface OnnxEmbedderOptions {
  /** A sentence-transformers ONNX export: `model.onnx` + `tokenizer.json` (e.g. all-MiniLM-L6-v2, or `models/default`). */
  modelDir: string;
  /** onnxruntime intra-op threads. @default the number of CPU cores */
  intraOpThreads?: number;
  /** Most texts in one model run. @default 32 */
  maxBatch?: number;
  /** How long a lone request waits for others to share its run. @default 2 */
  batchWindowMs?: number;
  /** Texts whose vectors are kept (LRU); 0 disables the cache. @default 4096 */
  cacheEntries?: number;
}

/** An ONNX embedder plus what `/readyz` and logs want to know about its model. */
export interface OnnxEmbedder extends ClosableEmbedder {
  /** Longest input in tokens (special tokens included); longer texts are truncated. */
  readonly maxSeqLength: number;
  /** Whether the graph gives token states (pooled here) or a pooled `sentence_embedding`. */
  readonly outputKind: 'tokens' | 'pooled';
}

/**
 * Loads a model directory into a CPU onnxruntime session and returns an
 * {@link Embedder} that micro-batches concurrent requests. One probe run at
 * load finds the dimension and proves the graph works, so a bad model fails
 * at start-up, not on the first request.
 */
export async function loadOnnxEmbedder(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
  const dir = await readModelDir(options.modelDir);
  const encoder = createTokenEncoder(dir.tokenizerJson, dir.tokenizerConfig, dir.maxSeqLength);
  const session = await openOnnxSession(dir.modelPath, options.intraOpThreads);
  try {
    const io = describeModelIo(session);
    const runBatch = createOnnxBatchRunner(session, io, encoder);
    const [probe] = await runBatch(['probe']);
    if (probe === undefined || probe.length === 0) {
      throw new AppError(ErrorCode.Unavailable, `embedding model in ${dir.modelId}: empty embedding`);
    }
    const embedder = createBatchingEmbedder({
      modelId: dir.modelId,
      dim: probe.length,
      runBatch,
      ...(options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch }),
      ...(options.batchWindowMs === undefined ? {} : { batchWindowMs: options.batchWindowMs }),
      ...(options.cacheEntries === undefined ? {} : { cacheEntries: options.cacheEntries }),
      onClose: () => session.release(),
    });
    const tokenRunner = createOnnxTokenRunner(session, io, encoder);
    const embedTokens = tokenRunner === undefined ? {} : { embedTokens: chunked(tokenRunner, options.maxBatch ?? DEFAULT_MAX_BATCH) };
    return { ...embedder, ...embedTokens, maxSeqLength: dir.maxSeqLength, outputKind: io.output.kind };
  } catch (err) {
    await session.release();
    throw err;
  }
}

/**
 * Token states in runs of at most `maxBatch` texts. Not cached or shared across
 * requests like sentence vectors: only replies and references need them, and
 * replies are new every step.
 */
function chunked(run: TokenStatesFn, maxBatch: number) {
  return async (texts: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[][]> => {
    const out: Float32Array[][] = [];
    for (let start = 0; start < texts.length; start += maxBatch) {
      opts.signal?.throwIfAborted();
      out.push(...(await run(texts.slice(start, start + maxBatch))));
    }
    return out;
  };
}
