import type { StoryExtra, StoryItemScore } from '../schemas.ts';
import type { PreparedItem } from './prepare-item.ts';
import { beyondReference, coherence, copyMeasure, entropyScore, infoGain, nonRepetition, quality, relevance, type ContextVectors } from './reward-components.ts';
import type { RewardTuning } from './tuning.ts';
import { weightedTotal, type ComponentValues } from './weighted-total.ts';

/** Looks up the embedding of a text embedded for this batch. */
export type VectorOf = (text: string) => Float32Array;

const orNull = (x: number | undefined): number | null => (x === undefined ? null : x);

/**
 * Scores one prepared item from its texts' embeddings. Every component and
 * diagnostic key is present in `extra` (null when it did not apply), so a
 * trainer collecting `extra` column by column gets equal-length columns.
 */
export function scorePrepared(p: PreparedItem, vectorOf: VectorOf, tuning: Readonly<RewardTuning>, modelId: string): StoryItemScore {
  const c: ContextVectors = {
    userInput: p.userInput === undefined ? undefined : vectorOf(p.userInput),
    story: p.story === undefined ? undefined : vectorOf(p.story),
    recent: p.recent.map(vectorOf),
  };
  const x = vectorOf(p.reply);
  const repeat = copyMeasure(x, p.reply, p.earlier.map((text) => ({ text, vector: vectorOf(text) })), tuning);

  let beyond: number | undefined;
  let delta: number | undefined;
  const replyQuality = quality(x, c);
  if (p.reference !== undefined && replyQuality !== undefined) {
    const ref = vectorOf(p.reference);
    const refQuality = quality(ref, c) as number;
    const copy = copyMeasure(x, p.reply, [{ text: p.reference, vector: ref }], tuning)!;
    delta = replyQuality - refQuality;
    beyond = beyondReference(replyQuality, refQuality, copy, tuning);
  }

  const values: ComponentValues = {
    relevance: relevance(x, c),
    coherence: coherence(x, c),
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
    info_gain_nats: orNull(p.signals.infoGainNats),
    entropy_nats: orNull(p.signals.entropyNats),
  };
  return { score: total, extra };
}
