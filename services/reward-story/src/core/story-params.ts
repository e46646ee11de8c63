import { MAX_ITEM_TIMEOUT_MS, invalidParamsError } from '@rl/service-kit/core';
import { z } from 'zod';
import { PartialWeights } from './weights.ts';

/** `params` of a story item: per-request weight overrides, plus the shared contract's `timeout_ms`. */
export const StoryParams = z.strictObject({
  weights: PartialWeights.optional(),
  // Part of every reward service's contract. Story scoring is one embedding call per
  // batch plus linear-time checks, so there is no per-item work to cut short: accepted, not enforced.
  timeout_ms: z.number().int().min(1).max(MAX_ITEM_TIMEOUT_MS).optional(),
});
/** Parsed story params. */
export type StoryParams = z.infer<typeof StoryParams>;

/** Parses an item's `params`; throws `invalid_params` naming the first failing key (`params.weights.relevance`). */
export function parseStoryParams(raw: Record<string, unknown> | undefined): StoryParams {
  if (raw === undefined) return {};
  const parsed = StoryParams.safeParse(raw);
  if (!parsed.success) throw invalidParamsError(parsed.error);
  return parsed.data;
}
