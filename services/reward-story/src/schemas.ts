// The batch envelope of `POST /v1/score` and `reward.story.score`; the item and
// its result are the core's schemas (core/story-item.ts).
import { z } from '@hono/zod-openapi';
import { ItemError, MAX_BATCH_ITEMS } from '@rl/service-kit';
import { StoryItemScore, StoryScoreItem } from './core/story-item.ts';

/** Body of `POST /v1/score` and of `reward.story.score`. */
export const StoryScoreRequest = z.object({ items: z.array(StoryScoreItem).min(1).max(MAX_BATCH_ITEMS) }).openapi('StoryScoreRequest');
export type StoryScoreRequest = z.infer<typeof StoryScoreRequest>;

/** Results in request order: a score or the item's error. */
export const StoryScoreResponse = z.object({ results: z.array(z.union([StoryItemScore, ItemError])) }).openapi('StoryScoreResponse');
export type StoryScoreResponse = z.infer<typeof StoryScoreResponse>;
