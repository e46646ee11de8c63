/**
 * What the story reward needs from an embedding model. The ONNX adapter in
 * `src/embed/` implements it; the reward core depends only on this port so it
 * can be unit-tested with a hand-built embedder.
 */
export interface Embedder {
  /** Model identifier reported in `extra` and `/readyz` (e.g. the model directory name). */
  readonly modelId: string;
  /** Length of every returned vector. */
  readonly dim: number;
  /**
   * One L2-normalised vector per text, in input order. Implementations may
   * micro-batch across concurrent callers; the result for a text never depends
   * on which other texts shared its batch.
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /**
   * Per text, the model's state of each content token (special tokens and
   * padding left out), unnormalised: a state's length says how much the token
   * counts. Absent when the model gives only pooled sentence vectors; the
   * token-level component then falls back to sentence cosines.
   */
  embedTokens?(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[][]>;
}
