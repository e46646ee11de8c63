import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Tensor } from '../model/backend.ts';
import { distributionsAt, entropyOf, pickTokens, valuesAt } from '../model/kernels.ts';
import type { ModelConfig } from '../model/model-config.ts';
import type { Params } from '../model/params.ts';

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
  /** Differentiable value of the state before each response token: critics only (a model with a value head). */
  readonly values: Tensor;
  /** 1 on real response tokens, 0 on padding (and on filler rows). */
  readonly mask: Tensor;
  /** A per-token input passed in {@link TrainBatch.inputs} (advantages, old log-probs, ...), 0 on padding. */
  input(name: string): Tensor;
  /** Names of the supplied inputs. */
  readonly inputNames: readonly string[];
}

/** A loss over per-token tensors: a scalar `loss` plus optional scalar metrics (clip fraction, KL, ...). */
export type PolicyLoss = (t: LossInputs) => { loss: Tensor; metrics?: Record<string, Tensor> };

/** The model pieces the lazy getters need: the hidden states of the response columns and the weights. */
export interface ResponseStates {
  cfg: ModelConfig;
  params: Params;
  /** `[B, R, D]` (see responseStates). */
  states: Tensor;
}

/**
 * Builds the accessors over traced tensors; `release()` frees the originals
 * afterwards. Log-probs, entropies and values are computed from the states only
 * when a loss reads them, so an actor loss never builds a value head and a
 * critic loss never builds the vocabulary softmax.
 */
export function lossInputs(model: ResponseStates, response: Tensor, mask: Tensor, inputs: Record<string, Tensor>): LossInputs & { release(): void } {
  let logSoftmax: Tensor | null = null;
  let logprobs: Tensor | null = null;
  let entropy: Tensor | null = null;
  let values: Tensor | null = null;
  const distributions = () => (logSoftmax ??= distributionsAt(model.cfg, model.params, model.states.ref));
  return {
    get logprobs() {
      logprobs ??= pickTokens(distributions().ref, response.ref);
      return logprobs.ref;
    },
    get entropy() {
      entropy ??= entropyOf(distributions().ref);
      return entropy.ref;
    },
    get values() {
      if (!model.cfg.valueHead) throw new AppError(ErrorCode.BadRequest, 'loss reads values, but the model has no value head (not a critic)');
      values ??= valuesAt(model.cfg, model.params, model.states.ref);
      return values.ref;
    },
    get mask() {
      return mask.ref;
    },
    input(name: string) {
      const t = inputs[name];
      if (t === undefined) throw new AppError(ErrorCode.BadRequest, `loss input ${name} was not supplied in the batch`);
      return t.ref;
    },
    inputNames: Object.keys(inputs),
    release() {
      for (const t of [logprobs, entropy, values, logSoftmax, model.states, response, mask, ...Object.values(inputs)]) t?.dispose();
    },
  };
}
