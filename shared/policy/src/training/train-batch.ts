import { AppError, ErrorCode } from '@rl/service-kit/core';
import { np, type Tensor } from '../model/backend.ts';
import type { PairBlock } from './batch-layout.ts';
import type { TokenPair } from '../generation/score.ts';

/** One (micro-)batch for the trainer. */
export interface TrainBatch {
  pairs: readonly TokenPair[];
  /** Per-token float inputs to the loss by name (advantages, old/ref log-probs, ...): one array per pair, as long as its response. */
  inputs?: Readonly<Record<string, ReadonlyArray<ArrayLike<number>>>>;
}

/** Lays each named input out as a `[B, R]` tensor matching the packed block (0 on padding); a length mismatch is a 400 naming it. */
export function trainBatchInputs(batch: TrainBatch, block: PairBlock): Record<string, Tensor> {
  const out: Record<string, Tensor> = {};
  const { rows, responseWidth: width } = block;
  for (const [name, perRow] of Object.entries(batch.inputs ?? {})) {
    if (perRow.length !== batch.pairs.length) {
      throw new AppError(ErrorCode.BadRequest, `inputs.${name} has ${perRow.length} rows, expected ${batch.pairs.length}`);
    }
    const data = new Float32Array(rows * width);
    perRow.forEach((values, i) => {
      const len = (batch.pairs[i] as TokenPair).response.length;
      if (values.length !== len)
        throw new AppError(ErrorCode.BadRequest, `inputs.${name}[${i}] has ${values.length} values, expected ${len} (the response length)`);
      for (let j = 0; j < len; j++) data[i * width + j] = values[j] as number;
    });
    out[name] = np.array(data).reshape([rows, width]);
  }
  return out;
}
