import { AppError, ErrorCode } from '../errors.ts';
import type { Tensor } from './backend.ts';
import { entropyOf, pickTokens } from './kernels.ts';

/**
 * What a loss function sees, all `[B, R]` (rows x response tokens, padded).
 * Every getter returns a new reference the loss owns (jax-js move semantics:
 * each op consumes its inputs, so read a getter once per use).
 */
export interface LossInputs {
  /** Differentiable log-prob of each response token under the current weights. */
  readonly logprobs: Tensor;
  /** Differentiable entropy of each token's distribution (computed only if read). */
  readonly entropy: Tensor;
  /** 1 on real response tokens, 0 on padding (and on filler rows). */
  readonly mask: Tensor;
  /** A per-token input passed in {@link TrainBatch.inputs} (advantages, old log-probs, ...), 0 on padding. */
  input(name: string): Tensor;
  /** Names of the supplied inputs. */
  readonly inputNames: readonly string[];
}

/** A loss over per-token tensors: a scalar `loss` plus optional scalar metrics (clip fraction, KL, ...). */
export type PolicyLoss = (t: LossInputs) => { loss: Tensor; metrics?: Record<string, Tensor> };

/** Builds the accessors over traced tensors; `release()` frees the originals afterwards. */
export function lossInputs(logSoftmax: Tensor, response: Tensor, mask: Tensor, inputs: Record<string, Tensor>): LossInputs & { release(): void } {
  let logprobs: Tensor | null = null;
  let entropy: Tensor | null = null;
  return {
    get logprobs() {
      logprobs ??= pickTokens(logSoftmax.ref, response.ref);
      return logprobs.ref;
    },
    get entropy() {
      entropy ??= entropyOf(logSoftmax.ref);
      return entropy.ref;
    },
    get mask() {
      return mask.ref;
    },
    input(name: string) {
      const t = inputs[name];
      if (t === undefined) throw new AppError(ErrorCode.BadRequest, `loss input ${name} was not supplied in the batch`, { status: 400 });
      return t.ref;
    },
    inputNames: Object.keys(inputs),
    release() {
      for (const t of [logprobs, entropy, logSoftmax, response, mask, ...Object.values(inputs)]) t?.dispose();
    },
  };
}
