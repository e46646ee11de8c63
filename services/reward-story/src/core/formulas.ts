/**
 * The component formulas, each a pure function of embeddings (unit vectors
 * from the {@link Embedder}), texts and tuning constants. docs/formulas.md
 * states each formula; keep the two in step.
 */
import { maxContainment } from './lexical-overlap.ts';
import type { RewardTuning } from './tuning.ts';
import { centroid, clamp01, cosine, excessOver, mean, sigmoid } from './vector-math.ts';

/** Embeddings of one item's context; absent parts are undefined or empty. */
export interface ContextVectors {
  userInput: Float32Array | undefined;
  story: Float32Array | undefined;
  /** The last few history turns (see `recentTurns`). */
  recent: ReadonlyArray<Float32Array>;
}

/**
 * relevance = clamp(cos(x, user_input), 0, 1). Clamped rather than (1 + cos) / 2:
 * unrelated texts sit near cosine 0, so the affine map would pay an off-topic
 * reply 0.5 and squeeze all real differences into the top half.
 */
export function relevance(x: Float32Array, c: ContextVectors): number | undefined {
  return c.userInput === undefined ? undefined : clamp01(cosine(x, c.userInput));
}

/**
 * coherence = mean of the parts present among clamp(cos(x, story), 0, 1) and
 * clamp(cos(x, centroid of the recent turns), 0, 1). The centroid, not the
 * turn-by-turn mean, so a reply that carries the scene on is not punished for
 * differing from each single line.
 */
export function coherence(x: Float32Array, c: ContextVectors): number | undefined {
  const parts: number[] = [];
  if (c.story !== undefined) parts.push(clamp01(cosine(x, c.story)));
  const recent = centroid(c.recent);
  if (recent !== undefined) parts.push(clamp01(cosine(x, recent)));
  return mean(parts);
}

/**
 * quality = coherence where it applies, else relevance: the yardstick
 * beyond_reference applies to reply and reference alike. Coherence first,
 * because the cosine to the user input pays a reply for echoing the user's own
 * words: on the evaluation set an off-topic reply that reuses them was closer
 * to the user input than the good reply in 46 of 48 scenarios.
 */
export function quality(x: Float32Array, c: ContextVectors): number | undefined {
  return coherence(x, c) ?? relevance(x, c);
}

/**
 * brevity = BLEU's brevity penalty against a share of the reference's length:
 * exp(1 - r / c) when the reply's c words are fewer than r = brevityRatio × the
 * reference's words, else 1 (0 for an empty reply). A bare "Okay." fits any
 * turn and says nothing; it keeps only this share of its fit.
 */
export function brevity(replyWords: number, referenceWords: number, t: Pick<RewardTuning, 'brevityRatio'>): number {
  const r = t.brevityRatio * referenceWords;
  if (replyWords >= r) return 1;
  return replyWords === 0 ? 0 : Math.exp(1 - r / replyWords);
}

/**
 * reference_recall = clamp(token recall of the reference by the reply, 0, 1)
 * (see `token-recall.ts`), or clamp(cos(x, reference), 0, 1) when the model
 * gives no token states: how much of what the reference says the reply says
 * too, in its own words. The caller scales it by N, so copying the reference
 * is not the way to it.
 */
export function referenceRecall(recallOrCosine: number): number {
  return clamp01(recallOrCosine);
}

/** How much of a copy of `sources` a text is, by meaning and by wording. */
export interface CopyMeasure {
  /** Largest cosine to a source. */
  cosine: number;
  /** Largest share of the text's word trigrams found in one source. */
  overlap: number;
  /** max(excessOver(cosine, copyCosine), excessOver(overlap, copyOverlap)), in [0, 1]. */
  penalty: number;
}

/** Measures `text` (embedded as `x`) against earlier texts; undefined when there are none. */
export function copyMeasure(
  x: Float32Array,
  text: string,
  sources: ReadonlyArray<{ vector: Float32Array; text: string }>,
  t: Pick<RewardTuning, 'copyCosine' | 'copyOverlap'>,
): CopyMeasure | undefined {
  if (sources.length === 0) return undefined;
  const cos = Math.max(...sources.map((s) => cosine(x, s.vector)));
  const overlap = maxContainment(
    text,
    sources.map((s) => s.text),
  );
  return { cosine: cos, overlap, penalty: Math.max(excessOver(cos, t.copyCosine), excessOver(overlap, t.copyOverlap)) };
}

/**
 * novelty = 1 - the larger copy penalty (against earlier assistant replies, against
 * the reference): with brevity, the share of relevance, coherence and
 * reference_recall a reply keeps. A verbatim earlier turn fits the history
 * perfectly and a copied reference fits the turn as well as the reference does;
 * neither is the reply's own work, so neither earns it.
 */
export function novelty(...copies: ReadonlyArray<CopyMeasure | undefined>): number {
  return 1 - Math.max(0, ...copies.map((c) => c?.penalty ?? 0));
}

/** non_repetition = 1 - the copy penalty against earlier assistant replies. */
export function nonRepetition(copy: CopyMeasure): number {
  return 1 - copy.penalty;
}

/**
 * beyond_reference = sigmoid((quality(x) - quality(ref)) / referenceTemperature)
 * × (1 - copy penalty against the reference). Equal quality gives 0.5; a copy of
 * the reference gives 0 whatever its quality.
 */
export function beyondReference(replyQuality: number, referenceQuality: number, copy: CopyMeasure, t: Pick<RewardTuning, 'referenceTemperature'>): number {
  return sigmoid((replyQuality - referenceQuality) / t.referenceTemperature) * (1 - copy.penalty);
}

/**
 * info_gain = sigmoid(mean log-prob gain / infoGainScaleNats). Rewards replies
 * the context makes more likely (a positive pointwise mutual information with
 * r: they use the story rather than saying what fits any story); 0 gain is 0.5.
 */
export function infoGain(meanGainNats: number, t: Pick<RewardTuning, 'infoGainScaleNats'>): number {
  return sigmoid(meanGainNats / t.infoGainScaleNats);
}

/**
 * entropy = 1 - exp(-mean entropy / entropyScaleNats). Rewards keeping some
 * uncertainty in the policy (against the entropy collapse that makes RL-tuned
 * stories formulaic), saturating so there is little to gain past a few nats;
 * relevance and coherence keep high-entropy gibberish from paying.
 */
export function entropyScore(meanEntropyNats: number, t: Pick<RewardTuning, 'entropyScaleNats'>): number {
  return 1 - Math.exp(-Math.max(0, meanEntropyNats) / t.entropyScaleNats);
}
