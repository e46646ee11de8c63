import type { StoryScoreItem } from './story-item.ts';
import { mergeWeights, type Weights } from './weights.ts';
import type { FormatChecker } from './format/format-checker.ts';
import { summariseSignals, type SignalSummary } from './signals.ts';
import { earlierReplies, nonBlank, recentTurns, resolveContext } from './story-context.ts';
import { parseStoryParams } from './story-params.ts';
import type { RewardSettings } from './tuning.ts';

/** One item checked and reduced to what the formulas need; blank texts are left out. */
export interface PreparedItem {
  reply: string;
  userInput: string | undefined;
  story: string | undefined;
  /** Texts coherence compares with. */
  recent: string[];
  /** Earlier assistant replies non_repetition compares with. */
  earlier: string[];
  reference: string | undefined;
  /** 1 or 0 when the item has an output format, else undefined. */
  format: number | undefined;
  signals: SignalSummary;
  weights: Weights;
}

/**
 * Validates everything about an item that needs no embedding (params, context,
 * signals, output format) and runs the format check. Throws `invalid_params`
 * naming the field.
 */
export function prepareItem(item: StoryScoreItem, settings: RewardSettings, formats: FormatChecker): PreparedItem {
  const params = parseStoryParams(item.params);
  const ctx = resolveContext(item);
  const signals = summariseSignals(item.signals);
  const format = ctx.outputFormat === undefined ? undefined : formats.compile(ctx.outputFormat.spec, ctx.outputFormat.field)(item.solution_str) ? 1 : 0;
  return {
    reply: item.solution_str,
    userInput: nonBlank(ctx.userInput) ? ctx.userInput : undefined,
    story: nonBlank(ctx.story) ? ctx.story : undefined,
    recent: recentTurns(ctx.history, settings.tuning.recentTurns),
    earlier: earlierReplies(ctx.history),
    reference: ctx.reference,
    format,
    signals,
    weights: mergeWeights(settings.weights, params.weights),
  };
}

/** Every text of `p` that needs an embedding. */
export function textsOf(p: PreparedItem): string[] {
  const out = [p.reply, ...p.recent, ...p.earlier];
  for (const t of [p.userInput, p.story, p.reference]) if (t !== undefined) out.push(t);
  return out;
}
