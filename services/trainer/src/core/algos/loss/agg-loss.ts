import { z } from 'zod';
import { assertMatrix, assertShape, at, invalid, type Floats, type Mask, type Shape } from '../types.ts';

/** verl `loss_agg_mode` values (ActorConfig.valid_loss_agg_modes), as a non-empty tuple. */
export const LOSS_AGG_MODES = ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;
/** Schema of {@link LOSS_AGG_MODES}. */
export const LossAggMode = z.enum(LOSS_AGG_MODES);
/** One of the four aggregation modes. */
export type LossAggMode = z.infer<typeof LossAggMode>;

/**
 * verl `config.global_batch_info` (+ `loss_scale_factor`): denominators taken from the whole global
 * batch so that micro-batch losses add up to the loss of the full batch. Omitted fields fall back to
 * the micro-batch's own counts, which is what verl's dp_actor does.
 */
export interface GlobalBatchInfo {
  /** Data-parallel world size the loss is multiplied by. @default 1 */
  readonly dpSize?: number;
  /** Valid tokens in the global batch ("token-mean" denominator). @default mask sum of this micro-batch */
  readonly batchNumTokens?: number;
  /** Sequences in the global batch ("seq-mean-*" denominator). @default non-empty rows of this micro-batch */
  readonly globalBatchSize?: number;
  /** "seq-mean-token-sum-norm" divisor. @default seqLen (verl: loss_mask.shape[-1]) */
  readonly lossScaleFactor?: number;
}

/** Inputs of {@link aggLoss}. */
export interface AggLossInput {
  readonly shape: Shape;
  /** [batch, seqLen] per-token losses. */
  readonly lossMat: Floats;
  readonly lossMask: Mask;
  readonly mode: LossAggMode;
  readonly global?: GlobalBatchInfo;
}

/** A scalar loss and dLoss/dLossMat per token. */
export interface AggLossResult {
  readonly loss: number;
  readonly dLossMat: Float64Array;
}

/**
 * verl `agg_loss`. With n_b the mask sum of row b and S the rows with n_b > 0:
 * - token-mean: sum(loss*mask) / batchNumTokens * dpSize (NaN/Inf outside the mask are ignored)
 * - seq-mean-token-sum: sum_{b in S} sum_t(loss*mask) / globalBatchSize * dpSize
 * - seq-mean-token-mean: sum_{b in S} (sum_t(loss*mask) / (n_b + 1e-8)) / globalBatchSize * dpSize
 * - seq-mean-token-sum-norm: sum(loss*mask) / lossScaleFactor (no dpSize, as in verl)
 * The seq-mean modes multiply loss by mask without the where() of masked_sum, so a NaN in a masked
 * slot propagates, exactly as in verl. The gradient is the (constant) per-token weight.
 */
export function aggLoss(input: AggLossInput): AggLossResult {
  const { shape, lossMat, lossMask, mode, global = {} } = input;
  assertShape(shape);
  assertMatrix('lossMat', lossMat, shape);
  assertMatrix('lossMask', lossMask, shape);
  const { batchSize, seqLen } = shape;
  const dpSize = global.dpSize ?? 1;
  const dLossMat = new Float64Array(batchSize * seqLen);
  const rowCount = new Float64Array(batchSize);
  const rowSum = new Float64Array(batchSize);
  let nonEmptyRows = 0;
  for (let b = 0; b < batchSize; b++) {
    let n = 0;
    let s = 0;
    for (let t = 0; t < seqLen; t++) {
      const i = b * seqLen + t;
      const m = at(lossMask, i);
      n += m;
      s += mode === 'token-mean' ? (m !== 0 ? at(lossMat, i) * m : 0) : at(lossMat, i) * m;
    }
    rowCount[b] = n;
    rowSum[b] = s;
    if (n > 0) nonEmptyRows++;
  }
  const fill = (rowWeight: (b: number) => number): void => {
    for (let b = 0; b < batchSize; b++) {
      const w = rowWeight(b);
      for (let t = 0; t < seqLen; t++) dLossMat[b * seqLen + t] = w * at(lossMask, b * seqLen + t);
    }
  };
  let loss = 0;
  switch (mode) {
    case 'token-mean': {
      let tokens = 0;
      for (const n of rowCount) tokens += n;
      const denom = global.batchNumTokens ?? tokens;
      for (const s of rowSum) loss += s;
      loss = (loss / denom) * dpSize;
      fill(() => dpSize / denom);
      break;
    }
    case 'seq-mean-token-sum':
    case 'seq-mean-token-mean': {
      const denom = global.globalBatchSize ?? nonEmptyRows;
      const perToken = mode === 'seq-mean-token-mean';
      for (let b = 0; b < batchSize; b++) {
        if (at(rowCount, b) > 0) loss += perToken ? at(rowSum, b) / (at(rowCount, b) + 1e-8) : at(rowSum, b);
      }
      loss = (loss / denom) * dpSize;
      fill((b) => (at(rowCount, b) > 0 ? (perToken ? 1 / (at(rowCount, b) + 1e-8) : 1) * (dpSize / denom) : 0));
      break;
    }
    case 'seq-mean-token-sum-norm': {
      const factor = global.lossScaleFactor ?? seqLen;
      for (const s of rowSum) loss += s;
      loss /= factor;
      fill(() => 1 / factor);
      break;
    }
    default:
      throw invalid('lossAggMode', `invalid loss_agg_mode ${String(mode satisfies never)}`);
  }
  return { loss, dLossMat };
}
