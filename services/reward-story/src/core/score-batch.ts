import { AppError, ErrorCode, type ErrorBody } from '@rl/service-kit/core';
import type { StoryItemScore, StoryScoreItem } from './story-item.ts';
import type { Embedder } from './embedder.ts';
import type { FormatChecker } from './format/format-checker.ts';
import { prepareItem, textsOf, type PreparedItem } from './prepare-item.ts';
import { scorePrepared } from './score-story.ts';
import type { RewardSettings } from './tuning.ts';

/** One result slot: a score or the item's own error. */
export type StorySlot = StoryItemScore | { error: ErrorBody };

/** What {@link scoreBatch} needs besides the items. */
export interface BatchDeps {
  embedder: Embedder;
  formats: FormatChecker;
  settings: RewardSettings;
}

type SlotError = { error: ErrorBody };

function toSlotError(err: unknown): SlotError {
  if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
  return { error: { code: ErrorCode.ScorerFailed, message: err instanceof Error ? err.message : String(err) } };
}

/**
 * Scores a batch in request order. Items are validated first (a bad item gets
 * its error in its slot and is not embedded); then every distinct text of the
 * remaining items goes to the embedder in one `embed` call, so histories and
 * stories shared by the samples of one conversation (or the replies of one
 * GRPO group) are embedded once, and every distinct reply and reference in one
 * `embedTokens` call when the model gives token states. An embedder failure
 * fails the whole batch: it says nothing about any item.
 */
export async function scoreBatch(items: ReadonlyArray<StoryScoreItem>, deps: BatchDeps, signal?: AbortSignal): Promise<StorySlot[]> {
  const prepared: Array<PreparedItem | SlotError> = items.map((item) => {
    try {
      return prepareItem(item, deps.settings, deps.formats);
    } catch (err) {
      return toSlotError(err);
    }
  });

  const index = new Map<string, number>();
  for (const p of prepared) if (!('error' in p)) for (const t of textsOf(p)) if (!index.has(t)) index.set(t, index.size);
  const texts = [...index.keys()];
  const vectors = texts.length === 0 ? [] : await deps.embedder.embed(texts, signal === undefined ? {} : { signal });
  if (vectors.length !== texts.length) {
    throw new AppError(ErrorCode.Internal, `embedder returned ${vectors.length} vectors for ${texts.length} texts`);
  }
  const vectorOf = (t: string) => vectors[index.get(t)!]!;

  // Token states only for reply and reference of items that have a reference:
  // reference_recall is the one component that reads them.
  const tokenTexts = [...new Set(prepared.flatMap((p) => ('error' in p || p.reference === undefined ? [] : [p.reply, p.reference])))];
  const states =
    deps.embedder.embedTokens === undefined || tokenTexts.length === 0
      ? undefined
      : await deps.embedder.embedTokens(tokenTexts, signal === undefined ? {} : { signal });
  if (states !== undefined && states.length !== tokenTexts.length) {
    throw new AppError(ErrorCode.Internal, `embedder returned token states for ${states.length} of ${tokenTexts.length} texts`);
  }
  const tokenIndex = new Map(tokenTexts.map((t, i) => [t, i]));
  const tokensOf = (t: string) => (states === undefined ? undefined : states[tokenIndex.get(t)!]);

  return prepared.map((p) => {
    if ('error' in p) return p;
    try {
      return scorePrepared(p, vectorOf, tokensOf, deps.settings.tuning, deps.embedder.modelId);
    } catch (err) {
      return toSlotError(err);
    }
  });
}
