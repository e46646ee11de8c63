import { aggLoss, type GlobalBatchInfo, type LossAggMode } from './agg-loss.ts';
import { at, invalid, type Floats, type Mask, type Shape } from '../types.ts';

/**
 * verl `entropy_from_logits`: H = logsumexp(z) - sum(softmax(z) * z) for each row of a
 * [tokens, vocabSize] logits matrix.
 */
export function entropyFromLogits(logits: Floats, vocabSize: number): Float32Array {
  if (!Number.isInteger(vocabSize) || vocabSize <= 0 || logits.length % vocabSize !== 0) {
    throw invalid('vocabSize', `must be a positive divisor of the logits length ${logits.length}`);
  }
  const tokens = logits.length / vocabSize;
  const out = new Float32Array(tokens);
  for (let r = 0; r < tokens; r++) {
    const { lse, meanLogit } = softmaxStats(logits, r * vocabSize, vocabSize);
    out[r] = lse - meanLogit;
  }
  return out;
}

/**
 * Backward of {@link entropyFromLogits}: dH/dz_j = -p_j (z_j - sum_k p_k z_k), scaled by the upstream
 * gradient dLoss/dH of each row. For trainers that cannot differentiate entropy themselves.
 */
export function entropyFromLogitsBackward(logits: Floats, vocabSize: number, dEntropy: Floats): Float32Array {
  const tokens = logits.length / vocabSize;
  if (dEntropy.length !== tokens) throw invalid('dEntropy', `expected ${tokens} values, got ${dEntropy.length}`);
  const out = new Float32Array(logits.length);
  for (let r = 0; r < tokens; r++) {
    const base = r * vocabSize;
    const { lse, meanLogit } = softmaxStats(logits, base, vocabSize);
    const g = at(dEntropy, r);
    for (let j = 0; j < vocabSize; j++) {
      const z = at(logits, base + j);
      out[base + j] = -g * Math.exp(z - lse) * (z - meanLogit);
    }
  }
  return out;
}

function softmaxStats(logits: Floats, base: number, vocabSize: number): { lse: number; meanLogit: number } {
  let max = -Infinity;
  for (let j = 0; j < vocabSize; j++) max = Math.max(max, at(logits, base + j));
  let sum = 0;
  for (let j = 0; j < vocabSize; j++) sum += Math.exp(at(logits, base + j) - max);
  const lse = max + Math.log(sum);
  let meanLogit = 0;
  for (let j = 0; j < vocabSize; j++) {
    const z = at(logits, base + j);
    meanLogit += Math.exp(z - lse) * z;
  }
  return { lse, meanLogit };
}

/** Inputs of {@link computeEntropyLoss}. */
export interface EntropyLossInput {
  readonly shape: Shape;
  /** [batch, seqLen] per-token entropies. */
  readonly entropy: Floats;
  readonly responseMask: Mask;
  /** @default "token-mean" */
  readonly lossAggMode?: LossAggMode;
  readonly global?: GlobalBatchInfo;
}

/**
 * verl `compute_entropy_loss` / the actor's `entropy_agg = agg_loss(entropy)`. The actor subtracts
 * entropy_coeff * entropy_agg from the loss; this returns entropy_agg and d(entropy_agg)/d(entropy).
 */
export function computeEntropyLoss(input: EntropyLossInput): { entropyLoss: number; dEntropy: Float32Array } {
  const agg = aggLoss({
    shape: input.shape,
    lossMat: input.entropy,
    lossMask: input.responseMask,
    mode: input.lossAggMode ?? 'token-mean',
    global: input.global,
  });
  return { entropyLoss: agg.loss, dEntropy: Float32Array.from(agg.dLossMat) };
}
