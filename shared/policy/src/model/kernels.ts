// Compiled (jit) entry points of one model shape. jax-js compiles once per
// distinct input shape, so callers pad batches and lengths to buckets
// (batch-layout.ts). Versions of the same shape share one Kernels object, so a
// hot-swapped model does not pay compilation again.
import { jit, nn, np, type Tensor } from './backend.ts';
import { headDim, type ModelConfig } from './model-config.ts';
import { linear } from './layers.ts';
import { param, type Params } from './params.ts';
import { decodeStep, finalNorm, forwardSequence, head, type KvCache } from './transformer.ts';

/**
 * Teacher forcing over `[prompt | response]`: the final hidden states (before
 * the final norm) of the columns the response tokens are predicted from,
 * `[B, R, D]`. Column j predicts token j + 1, so response token r comes from
 * column pLen - 1 + r (the state before it: also where a critic's value of
 * that step is read, as verl's dp_critic slices `[-R - 1 : -1]`). Traced, not
 * compiled, so the trainer can differentiate through it.
 */
export function responseStates(cfg: ModelConfig, p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor): Tensor {
  const pLen = prompt.shape[1] as number;
  const rLen = response.shape[1] as number;
  const ids = np.concatenate([prompt, response], 1);
  const { hidden } = forwardSequence(cfg, p, ids, positions, keyMask, false);
  return hidden.slice([], [pLen - 1, pLen - 1 + rLen]);
}

/** Log-softmax `[B, R, V]` of the next-token distributions at `states` `[B, R, D]`. */
export function distributionsAt(cfg: ModelConfig, p: Params, states: Tensor): Tensor {
  return nn.logSoftmax(head(cfg, p, states), -1);
}

/** A critic's values `[B, R]` at `states` `[B, R, D]`: the `score` Linear (`[1, D]` and bias) over the final-norm states. */
export function valuesAt(cfg: ModelConfig, p: Params, states: Tensor): Tensor {
  const [b, r] = states.shape as [number, number, number];
  return linear(finalNorm(cfg, p, states), param(p, 'score.weight'), param(p, 'score.bias')).reshape([b, r]);
}

/** Log-softmax `[B, R, V]` of the distribution each response token was drawn from. */
export function responseLogSoftmax(cfg: ModelConfig, p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor): Tensor {
  return distributionsAt(cfg, p, responseStates(cfg, p, prompt, response, positions, keyMask));
}

/** Log-prob of each token `[B, R]` under `logSoftmax` `[B, R, V]`. */
export function pickTokens(logSoftmax: Tensor, tokens: Tensor): Tensor {
  return np.sum(logSoftmax.mul(nn.oneHot(tokens, logSoftmax.shape[2] as number)), -1);
}

/** Entropy `[B, R]` of each distribution in `logSoftmax` `[B, R, V]`. */
export function entropyOf(logSoftmax: Tensor): Tensor {
  return np.sum(np.exp(logSoftmax.ref).mul(logSoftmax), -1).mul(-1);
}

/** Compiled functions for one model config. */
export interface Kernels {
  readonly config: ModelConfig;
  /** Prompt pass: logits of the last column `[B, V]` and a cache of `capacity` columns. */
  prefill(p: Params, ids: Tensor, positions: Tensor, keyMask: Tensor, capacity: number): { logits: Tensor; cache: KvCache };
  /** One cached decoding step. */
  decode(p: Params, cache: KvCache, tokens: Tensor, positions: Tensor, keyMask: Tensor, column: Tensor): { logits: Tensor; cache: KvCache };
  /** Without a cache: full pass over `[B, C]`, logits of the column picked by a one-hot `[C]`. */
  logitsAt(p: Params, ids: Tensor, positions: Tensor, keyMask: Tensor, column: Tensor): Tensor;
  /** Teacher-forced log-probs `[B, R]` of `response` after `prompt`. */
  score(p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor): Tensor;
  /** Same with per-token entropies. */
  scoreWithEntropy(p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor): { logprobs: Tensor; entropy: Tensor };
  /** A critic's value `[B, R]` of the state before each response token (models with a value head). */
  values(p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor): Tensor;
  /** Adds a user (models of the same shape share kernels). */
  retain(): Kernels;
  /** Drops a user; the compiled programs are freed with the last one. */
  release(): void;
}

/** Builds the compiled functions of `cfg`, with one user. */
export function createKernels(cfg: ModelConfig): Kernels {
  const prefill = jit(
    (p: Params, ids: Tensor, positions: Tensor, keyMask: Tensor, capacity: number) => {
      const [b, t] = ids.shape as [number, number];
      const { hidden, cache } = forwardSequence(cfg, p, ids, positions, keyMask, true);
      const logits = head(cfg, p, hidden.slice([], t - 1));
      const pad = (x: Tensor) => (capacity > t ? np.concatenate([x, np.zeros([b, cfg.nKvHeads, capacity - t, headDim(cfg)])], 2) : x);
      return { logits, cache: { k: cache.k.map(pad), v: cache.v.map(pad) } };
    },
    { staticArgnums: [4] },
  );
  const decode = jit((p: Params, cache: KvCache, tokens: Tensor, positions: Tensor, keyMask: Tensor, column: Tensor) =>
    decodeStep(cfg, p, cache, tokens, positions, keyMask, column),
  );
  const logitsAt = jit((p: Params, ids: Tensor, positions: Tensor, keyMask: Tensor, column: Tensor) => {
    const c = column.shape[0] as number;
    const { hidden } = forwardSequence(cfg, p, ids, positions, keyMask, false);
    const picked = np.sum(hidden.mul(column.reshape([1, c, 1])), 1);
    return head(cfg, p, picked);
  });
  const score = jit((p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor) =>
    pickTokens(responseLogSoftmax(cfg, p, prompt, response.ref, positions, keyMask), response),
  );
  const scoreWithEntropy = jit((p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor) => {
    const lsm = responseLogSoftmax(cfg, p, prompt, response.ref, positions, keyMask);
    return { logprobs: pickTokens(lsm.ref, response), entropy: entropyOf(lsm) };
  });
  const values = jit((p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor) =>
    valuesAt(cfg, p, responseStates(cfg, p, prompt, response, positions, keyMask)),
  );
  let users = 1;
  const kernels: Kernels = {
    config: cfg,
    prefill: (p, ids, positions, keyMask, capacity) => prefill(p, ids, positions, keyMask, capacity),
    decode: (p, cache, tokens, positions, keyMask, column) => decode(p, cache, tokens, positions, keyMask, column),
    logitsAt: (p, ids, positions, keyMask, column) => logitsAt(p, ids, positions, keyMask, column),
    score: (p, prompt, response, positions, keyMask) => score(p, prompt, response, positions, keyMask),
    scoreWithEntropy: (p, prompt, response, positions, keyMask) => scoreWithEntropy(p, prompt, response, positions, keyMask),
    values: (p, prompt, response, positions, keyMask) => values(p, prompt, response, positions, keyMask),
    retain: () => {
      if (users === 0) throw new Error('kernels retained after their last release');
      users++;
      return kernels;
    },
    release: () => {
      if (--users === 0) for (const f of [prefill, decode, logitsAt, score, scoreWithEntropy, values]) f.dispose();
    },
  };
  return kernels;
}
