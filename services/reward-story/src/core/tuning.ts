import type { Weights } from './weights.ts';

/** Constants of the component formulas (see docs/formulas.md for each formula). */
export interface RewardTuning {
  /** Turns of `conversation_history` (any role, newest last) that coherence compares with. @default 4 */
  recentTurns: number;
  /** Cosine to an earlier reply (or the reference) above which a reply counts as a near-copy. @default 0.9 */
  copyCosine: number;
  /** Share of the reply's word trigrams found in an earlier reply (or the reference) above which it counts as a copy. @default 0.5 */
  copyOverlap: number;
  /** Quality difference (reply minus reference) that moves beyond_reference from 0.5 to 0.73. @default 0.1 */
  referenceTemperature: number;
  /** Share of the reference's length (in words) below which a reply loses fit to the brevity penalty. @default 0.5 */
  brevityRatio: number;
  /** Mean log-prob gain in nats per token that moves info_gain from 0.5 to 0.73. @default 0.5 */
  infoGainScaleNats: number;
  /** Mean token entropy in nats at which the entropy component reaches 1 - 1/e (0.63). @default 1 */
  entropyScaleNats: number;
}

/** Default {@link RewardTuning}. */
export const DEFAULT_TUNING: Readonly<RewardTuning> = Object.freeze({
  recentTurns: 4,
  copyCosine: 0.9,
  copyOverlap: 0.5,
  referenceTemperature: 0.1,
  brevityRatio: 0.5,
  infoGainScaleNats: 0.5,
  entropyScaleNats: 1,
});

/** Everything the reward needs besides the items: configured weights and formula constants. */
export interface RewardSettings {
  weights: Readonly<Weights>;
  tuning: Readonly<RewardTuning>;
}
