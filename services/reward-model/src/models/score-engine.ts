import type { TokenPair } from '@rl/policy';

/**
 * What a trained reward model runs on: the one-label head read at the last id
 * of each row, one forward pass per call, one call at a time. The jax-js and
 * PyTorch engines are critics (see {@link criticScoreEngine}); the ONNX engine
 * runs an exported graph (onnx-engine.ts).
 */
export interface ScoreEngine {
  /** `jax`, `torch` or `onnx`, reported with each score. */
  readonly kind: 'jax' | 'torch' | 'onnx';
  /** The most ids a row may have. */
  readonly maxRowTokens: number;
  /** Positions a row of `n` ids takes in a forward pass: batches are formed by this. */
  rowWidth(n: number): number;
  /** The head's output at the last id of each row, in order. */
  scores(rows: ReadonlyArray<readonly number[]>): Promise<number[]>;
  /** False once the engine can no longer answer (a torch child that exited). */
  alive(): boolean;
  close(): Promise<void>;
}

/** A critic: the values of the states before each response token (the embedded jax-js policy, the PyTorch engine child). */
export interface CriticEngine {
  readonly kind: 'jax' | 'torch';
  /** Longest prompt + response it takes. */
  readonly maxSeqLen: number;
  /** The token appended as the response (its own id never matters: only the state before it is read). */
  readonly placeholderId: number;
  values(pairs: readonly TokenPair[]): Promise<Float32Array[]>;
  alive(): boolean;
  close(): Promise<void>;
}

/**
 * A critic as a {@link ScoreEngine}: a row's ids are the prompt and one
 * placeholder the response, so the value before it is the state of the row's
 * last id; one position of the critic's length is kept for the placeholder.
 */
export function criticScoreEngine(critic: CriticEngine): ScoreEngine {
  return {
    kind: critic.kind,
    maxRowTokens: critic.maxSeqLen - 1,
    rowWidth: (n) => n + 1,
    async scores(rows) {
      const values = await critic.values(rows.map((ids) => ({ prompt: ids, response: [critic.placeholderId] })));
      return values.map((v) => v[0] as number);
    },
    alive: () => critic.alive(),
    close: () => critic.close(),
  };
}
