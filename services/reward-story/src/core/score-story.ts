import type { StoryExtra, StoryItemScore } from './story-item.ts';
import type { PreparedItem } from './prepare-item.ts';
import { wordTokens } from './lexical-overlap.ts';
import {
  beyondReference,
  brevity,
  coherence,
  copyMeasure,
  entropyScore,
  infoGain,
  nonRepetition,
  novelty,
  quality,
  referenceRecall,
  relevance,
  type ContextVectors,
} from './formulas.ts';
import { tokenRecall } from './token-recall.ts';
import type { RewardTuning } from './tuning.ts';
import { cosine } from './vector-math.ts';
import { weightedTotal, type ComponentValues } from './weighted-total.ts';

/** Looks up the embedding of a text embedded for this batch. */
export type VectorOf = (text: string) => Float32Array;
/** Looks up a text's token states, or undefined when the model gives none. */
export type TokensOf = (text: string) => ReadonlyArray<Float32Array> | undefined;

const orNull = (x: number | undefined): number | null => (x === undefined ? null : x);

/**
 * Scores one prepared item from its texts' embeddings. Every component and
 * diagnostic key is present in `extra` (null when it did not apply), so a
 * trainer collecting `extra` column by column gets equal-length columns.
 */
export function scorePrepared(p: PreparedItem, vectorOf: VectorOf, tokensOf: TokensOf, tuning: Readonly<RewardTuning>, modelId: string): StoryItemScore {
  const c: ContextVectors = {
    userInput: p.userInput === undefined ? undefined : vectorOf(p.userInput),
    story: p.story === undefined ? undefined : vectorOf(p.story),
    recent: p.recent.map(vectorOf),
  };
  const x = vectorOf(p.reply);
  const repeat = copyMeasure(
    x,
    p.reply,
    p.earlier.map((text) => ({ text, vector: vectorOf(text) })),
    tuning,
  );

  // Copied text earns no credit for fitting the context it was copied from, and a reply
  // far shorter than the reference no full credit for fitting it: relevance, coherence,
  // reference_recall and the quality compared with the reference's keep only that share.
  const ref = p.reference === undefined ? undefined : { text: p.reference, vector: vectorOf(p.reference) };
  const refCopy = ref === undefined ? undefined : copyMeasure(x, p.reply, [ref], tuning);
  const brief = ref === undefined ? undefined : brevity(wordTokens(p.reply).length, wordTokens(ref.text).length, tuning);
  const kept = novelty(repeat, refCopy) * (brief ?? 1);
  const scaled = (v: number | undefined) => (v === undefined ? undefined : v * kept);
  let recall: number | undefined;
  if (ref !== undefined) {
    const replyTokens = tokensOf(p.reply);
    const refTokens = tokensOf(ref.text);
    recall = replyTokens === undefined || refTokens === undefined ? cosine(x, ref.vector) : tokenRecall(replyTokens, refTokens);
  }

  let beyond: number | undefined;
  let delta: number | undefined;
  const replyQuality = scaled(quality(x, c));
  if (ref !== undefined && refCopy !== undefined && replyQuality !== undefined) {
    const refQuality = quality(ref.vector, c) as number;
    delta = replyQuality - refQuality;
    beyond = beyondReference(replyQuality, refQuality, refCopy, tuning);
  }

  const values: ComponentValues = {
    relevance: scaled(relevance(x, c)),
    coherence: scaled(coherence(x, c)),
    reference_recall: scaled(recall === undefined ? undefined : referenceRecall(recall)),
    non_repetition: repeat === undefined ? undefined : nonRepetition(repeat),
    beyond_reference: beyond,
    info_gain: p.signals.infoGainNats === undefined ? undefined : infoGain(p.signals.infoGainNats, tuning),
    entropy: p.signals.entropyNats === undefined ? undefined : entropyScore(p.signals.entropyNats, tuning),
    format: p.format,
  };
  const { total, weightsUsed } = weightedTotal(values, p.weights);
  const extra: StoryExtra = {
    relevance: orNull(values.relevance),
    coherence: orNull(values.coherence),
    reference_recall: orNull(values.reference_recall),
    non_repetition: orNull(values.non_repetition),
    beyond_reference: orNull(values.beyond_reference),
    info_gain: orNull(values.info_gain),
    entropy: orNull(values.entropy),
    format: orNull(values.format),
    weights_used: weightsUsed,
    total,
    model: modelId,
    repeat_cosine: orNull(repeat?.cosine),
    repeat_overlap: orNull(repeat?.overlap),
    reference_delta: orNull(delta),
    brevity: orNull(brief),
    info_gain_nats: orNull(p.signals.infoGainNats),
    entropy_nats: orNull(p.signals.entropyNats),
  };
  return { score: total, extra };
}
