/**
 * IDF-like weight from a frequency rank (1 = most frequent). Under Zipf's law a
 * word of rank r turns up in a sentence-sized text with probability ∝ 1/r, so
 * its IDF grows as log r; scaled so the rarest listed word weighs 1. Rounded
 * to 3 decimals so the file does not hinge on the last bit of `Math.log`.
 */
export function rankWeight(rank: number, listSize: number): number {
  const w = Math.log(0.6 * rank) / Math.log(0.6 * listSize);
  return Math.round(Math.min(1, Math.max(MIN_WORD_WEIGHT, w)) * 1000) / 1000;
}

/** Least weight a listed word gets. */
export const MIN_WORD_WEIGHT = 0.05;
