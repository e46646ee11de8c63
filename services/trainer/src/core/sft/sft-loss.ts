// The SFT objective as verl's fsdp_sft_trainer computes it: per micro-batch,
// the mean negative log-likelihood over learned tokens (sum / (tokens + 1e-8));
// a step's loss is the sum over its micro-batches of that mean / n_micro.

/** One micro-batch's token-mean NLL from per-token log-probs and loss flags. */
export function tokenMeanNll(logprobs: readonly (readonly number[])[], lossMasks: readonly (readonly number[])[]): number {
  let sum = 0;
  let tokens = 0;
  logprobs.forEach((row, i) => {
    const mask = lossMasks[i]!;
    for (let t = 0; t < row.length; t++) {
      if (mask[t] === 1) {
        sum -= row[t]!;
        tokens++;
      }
    }
  });
  return sum / (tokens + 1e-8);
}

/** Splits `rows` into consecutive micro-batches of `size` (the last may be smaller). */
export function microBatches<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
