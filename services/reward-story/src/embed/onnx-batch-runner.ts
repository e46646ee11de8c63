import { availableParallelism } from 'node:os';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { AppError, ErrorCode } from '@rl/service-kit';
import type { IdType, ModelIo } from './onnx-io.ts';
import { l2Normalize, meanPool, takeRow, type TokenStates } from './pooling.ts';
import type { PaddedBatch, TokenEncoder } from './token-encoder.ts';

/** Embeds one batch of texts: one L2-normalised vector per text, in order. */
export type BatchEmbedFn = (texts: readonly string[]) => Promise<Float32Array[]>;

/**
 * Opens a CPU session. `session.run` is asynchronous and computes on
 * onnxruntime's own thread pool, so the event loop stays free meanwhile.
 */
export async function openOnnxSession(modelPath: string, intraOpThreads = availableParallelism()): Promise<InferenceSession> {
  if (!Number.isInteger(intraOpThreads) || intraOpThreads < 1) {
    throw new RangeError(`intraOpThreads must be a positive integer, got ${intraOpThreads}`);
  }
  try {
    return await InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: intraOpThreads,
      // One graph at a time per run; parallelism comes from intra-op threads.
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
  } catch (cause) {
    throw new AppError(ErrorCode.Unavailable, `embedding model: onnxruntime cannot load ${modelPath}`, {
      details: { modelPath },
      cause,
    });
  }
}

function idTensor(values: readonly number[], type: IdType, dims: readonly number[]): Tensor {
  return type === 'int64'
    ? new Tensor(
        'int64',
        BigInt64Array.from(values, (v) => BigInt(v)),
        dims,
      )
    : new Tensor('int32', Int32Array.from(values), dims);
}

/** Per text, the state of each content token (special tokens and padding left out), unnormalised. */
export type TokenStatesFn = (texts: readonly string[]) => Promise<Float32Array[][]>;

/** Tokenise → pad to the longest → one `session.run`; the output checked to be float32. */
function createSessionRun(session: Pick<InferenceSession, 'run'>, io: ModelIo, encoder: TokenEncoder) {
  return async function run(texts: readonly string[]): Promise<{ padded: PaddedBatch; data: Float32Array; dims: readonly number[] }> {
    const padded = encoder.encodeBatch(texts);
    const { batch, seqLen } = padded;
    const feeds: Record<string, Tensor> = {};
    for (const input of io.inputs) {
      const values =
        input.name === 'input_ids' ? padded.inputIds : input.name === 'attention_mask' ? padded.attentionMask : new Array<number>(batch * seqLen).fill(0); // token_type_ids: one segment
      feeds[input.name] = idTensor(values, input.type, [batch, seqLen]);
    }
    let result: InferenceSession.ReturnType;
    try {
      result = await session.run(feeds, [io.output.name]);
    } catch (cause) {
      throw new AppError(ErrorCode.Internal, 'embedding model run failed', { cause, details: { batch, seqLen } });
    }
    const out = result[io.output.name];
    if (out === undefined || out.type !== 'float32' || !(out.data instanceof Float32Array)) {
      throw new AppError(ErrorCode.Internal, `embedding output ${io.output.name} is not float32`, { details: { type: out?.type } });
    }
    return { padded, data: out.data, dims: out.dims };
  };
}

function tokenStates(io: ModelIo, padded: PaddedBatch, data: Float32Array, dims: readonly number[]): TokenStates {
  const { batch, seqLen } = padded;
  const dim = dims[2];
  if (dims.length !== 3 || dims[0] !== batch || dims[1] !== seqLen || dim === undefined) {
    throw badShape(io.output.name, dims, [batch, seqLen, 'dim']);
  }
  return { data, batch, seqLen, dim };
}

/** Tokenise → pad to the longest → one `session.run` → pool and normalise. */
export function createOnnxBatchRunner(session: Pick<InferenceSession, 'run'>, io: ModelIo, encoder: TokenEncoder): BatchEmbedFn {
  const run = createSessionRun(session, io, encoder);
  return async function embedBatch(texts) {
    if (texts.length === 0) return [];
    const { padded, data, dims } = await run(texts);
    if (io.output.kind === 'pooled') {
      const dim = dims[1];
      if (dims.length !== 2 || dims[0] !== padded.batch || dim === undefined) throw badShape(io.output.name, dims, [padded.batch, 'dim']);
      return texts.map((_, row) => l2Normalize(takeRow(data, dim, row)));
    }
    const states = tokenStates(io, padded, data, dims);
    return texts.map((_, row) => l2Normalize(meanPool(states, padded.attentionMask, row)));
  };
}

/**
 * Token states of a model whose output is per token (`last_hidden_state`,
 * `token_embeddings`); undefined for a pooled-only export, which has none.
 */
export function createOnnxTokenRunner(session: Pick<InferenceSession, 'run'>, io: ModelIo, encoder: TokenEncoder): TokenStatesFn | undefined {
  if (io.output.kind === 'pooled') return undefined;
  const run = createSessionRun(session, io, encoder);
  const { prefix, suffix } = encoder.specialTokens;
  return async function tokenStatesOf(texts) {
    if (texts.length === 0) return [];
    const { padded, data, dims } = await run(texts);
    const states = tokenStates(io, padded, data, dims);
    return texts.map((_, row) => {
      let length = 0;
      for (let t = 0; t < states.seqLen; t++) length += Number(padded.attentionMask[row * states.seqLen + t]);
      const out: Float32Array[] = [];
      for (let t = prefix; t < length - suffix; t++) {
        const base = (row * states.seqLen + t) * states.dim;
        out.push(data.slice(base, base + states.dim));
      }
      return out;
    });
  };
}

function badShape(name: string, got: readonly number[], want: ReadonlyArray<number | string>): AppError {
  return new AppError(ErrorCode.Internal, `embedding output ${name} has shape [${got.join(', ')}], expected [${want.join(', ')}]`);
}
