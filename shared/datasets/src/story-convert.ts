import type { RecordConverter } from './convert-run.ts';
import { parseStoryRecord, type StoryNotes } from './story-record.ts';
import { storySamples, type StoryOptions, type StorySample } from './story.ts';

/** Totals over the valid conversations of a story conversion. */
export interface StoryStats extends StoryNotes {
  conversations: number;
  /** Conversations that made no sample (no user turn answered by an assistant turn). */
  conversationsWithoutSamples: number;
  /** Samples per conversation -> number of conversations with that many. */
  samplesPerConversation: Map<number, number>;
}

/** A story converter that also counts what it saw. */
export interface StoryConverter extends RecordConverter<StorySample> {
  readonly stats: StoryStats;
}

/**
 * Converts raw story records into samples. A record's `id` becomes its
 * `conversation_id`; without one, its 0-based position in the input does, so
 * ids stay the same whatever else is skipped.
 */
export function createStoryConverter(options: StoryOptions): StoryConverter {
  const stats: StoryStats = {
    conversations: 0,
    conversationsWithoutSamples: 0,
    samplesPerConversation: new Map(),
    emptyTurns: 0,
    mergedTurns: 0,
    leadingAssistantTurns: 0,
    trailingUserTurns: 0,
  };
  return {
    stats,
    convert(value, label, recordIndex, firstRowIndex) {
      const record = parseStoryRecord(value, label);
      const samples = storySamples(record, record.id ?? String(recordIndex), firstRowIndex, options);
      stats.conversations++;
      if (samples.length === 0) stats.conversationsWithoutSamples++;
      stats.samplesPerConversation.set(samples.length, (stats.samplesPerConversation.get(samples.length) ?? 0) + 1);
      stats.emptyTurns += record.notes.emptyTurns;
      stats.mergedTurns += record.notes.mergedTurns;
      stats.leadingAssistantTurns += record.notes.leadingAssistantTurns;
      stats.trailingUserTurns += record.notes.trailingUserTurns;
      return samples;
    },
  };
}
