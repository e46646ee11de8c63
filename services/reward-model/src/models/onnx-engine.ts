// A reward model exported to ONNX (`model.onnx` in its Hugging Face directory,
// optimum's layout) on onnxruntime-node's CPU provider: one batch is one
// `session.run` over rows padded on the right (attention_mask 0 on the pad; a
// decoder's causal attention keeps it out of every real position), the score
// read at each row's last id, or taken from a graph that pools by itself.
import { availableParallelism } from 'node:os';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describeRewardGraph, type IdType, type RewardGraphIo } from './onnx-graph-io.ts';
import type { ReadAt } from './read-position.ts';
import type { ScoreEngine } from './score-engine.ts';

/** What {@link openOnnxEngine} needs. */
export interface OnnxEngineOptions {
  /** `DIR/model.onnx`. */
  modelPath: string;
  readAt: ReadAt;
  /**
   * config.json's pad_token_id. A graph that pools by itself reads the last id
   * that is not this one, so rows are padded with it; without one it reads the
   * last position, so only rows of one length share a run.
   */
  padId: number | null;
  /** What a per-token graph's rows are padded with when there is no pad_token_id (never read). */
  fillId: number;
  /** config.json's max_position_embeddings: the longest row. */
  maxPositions: number;
  /** onnxruntime's intra-op threads. @default availableParallelism() */
  threads?: number;
}

function idTensor(values: Int32Array, type: IdType, dims: readonly number[]): Tensor {
  return type === 'int64'
    ? new Tensor(
        'int64',
        BigInt64Array.from(values, (v) => BigInt(v)),
        dims,
      )
    : new Tensor('int32', values, dims);
}

/** One `session.run` over rows padded to the longest; the score of each row. */
async function runRows(session: InferenceSession, io: RewardGraphIo, rows: ReadonlyArray<readonly number[]>, fill: number): Promise<number[]> {
  const batch = rows.length;
  const seq = Math.max(...rows.map((r) => r.length));
  const ids = new Int32Array(batch * seq).fill(fill);
  const mask = new Int32Array(batch * seq);
  const positions = new Int32Array(batch * seq);
  rows.forEach((row, r) => {
    ids.set(row, r * seq);
    mask.fill(1, r * seq, r * seq + row.length);
    // What the model computes without position_ids (arange): right padding leaves every real position in place.
    for (let t = 0; t < seq; t++) positions[r * seq + t] = t;
  });
  const values = { input_ids: ids, attention_mask: mask, position_ids: positions };
  const feeds: Record<string, Tensor> = {};
  for (const input of io.inputs) feeds[input.name] = idTensor(values[input.name], input.type, [batch, seq]);
  let result: InferenceSession.ReturnType;
  try {
    result = await session.run(feeds, [io.output]);
  } catch (cause) {
    throw new AppError(ErrorCode.Internal, `onnx engine: the run failed (${cause instanceof Error ? cause.message : String(cause)})`, {
      cause,
      details: { batch, seq },
    });
  }
  const out = result[io.output];
  if (out === undefined || out.type !== 'float32' || !(out.data instanceof Float32Array)) {
    throw new AppError(ErrorCode.Internal, `onnx engine: output ${io.output} is not float32`);
  }
  const want = io.kind === 'tokens' ? [batch, seq, 1] : [batch, 1];
  if (out.dims.length !== want.length || out.dims.some((d, i) => d !== want[i])) {
    throw new AppError(ErrorCode.Internal, `onnx engine: output ${io.output} has shape [${out.dims.join(', ')}], expected [${want.join(', ')}]`);
  }
  const data = out.data;
  return rows.map((row, r) => data[io.kind === 'tokens' ? r * seq + row.length - 1 : r] as number);
}

/** Opens `modelPath` and checks its inputs and output; a graph this service cannot use is `invalid_config` naming it. */
export async function openOnnxEngine(options: OnnxEngineOptions): Promise<ScoreEngine> {
  const { modelPath, readAt, padId, fillId, maxPositions, threads = availableParallelism() } = options;
  let session: InferenceSession;
  try {
    session = await InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: threads,
      // One batch at a time; its parallelism is the intra-op threads'.
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
  } catch (cause) {
    throw new AppError(ErrorCode.InvalidConfig, `${modelPath}: onnxruntime cannot load it (${cause instanceof Error ? cause.message : String(cause)})`, {
      cause,
    });
  }
  let io: RewardGraphIo;
  try {
    io = describeRewardGraph(session, readAt, modelPath);
  } catch (err) {
    await session.release();
    throw err;
  }
  const pooled = io.kind === 'pooled';
  let closed = false;
  // The run in progress: close() waits for it before releasing the session under it.
  let running: Promise<unknown> = Promise.resolve();
  const tracked = <T>(run: Promise<T>): Promise<T> => {
    running = run.catch(() => {});
    return run;
  };
  return {
    kind: 'onnx',
    maxRowTokens: maxPositions,
    rowWidth: (n) => n,
    async scores(rows) {
      if (closed) throw new AppError(ErrorCode.Unavailable, 'onnx engine: closed');
      if (rows.length === 0) return [];
      if (!pooled || padId !== null) return tracked(runRows(session, io, rows, padId ?? fillId));
      // A graph pooling at the last position: rows of one length per run, so no row has padding after its last id.
      const out = new Array<number>(rows.length);
      const byLength = new Map<number, number[]>();
      rows.forEach((row, i) => {
        const group = byLength.get(row.length);
        if (group === undefined) byLength.set(row.length, [i]);
        else group.push(i);
      });
      for (const at of byLength.values()) {
        const scores = await tracked(
          runRows(
            session,
            io,
            at.map((i) => rows[i] as number[]),
            fillId,
          ),
        );
        at.forEach((i, k) => {
          out[i] = scores[k] as number;
        });
      }
      return out;
    },
    alive: () => !closed,
    async close() {
      if (closed) return;
      closed = true;
      await running;
      await session.release();
    },
  };
}
