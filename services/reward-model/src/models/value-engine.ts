import type { TokenPair } from '@rl/policy';

/**
 * What a reward model runs on: a critic's values of the states before each
 * response token (the embedded jax-js policy or the PyTorch engine child),
 * one call at a time.
 */
export interface ValueEngine {
  /** `jax` or `torch`, reported with each score. */
  readonly kind: 'jax' | 'torch';
  /** Longest prompt + response the engine takes. */
  readonly maxSeqLen: number;
  values(pairs: readonly TokenPair[]): Promise<Float32Array[]>;
  /** False once the engine can no longer answer (a torch child that exited). */
  alive(): boolean;
  close(): Promise<void>;
}
