// The HTTP (and NATS) schemas of reward-model: the shared batch contract in,
// results whose errors may carry `extra` (a judge's raw answer) out.
import { z } from '@hono/zod-openapi';
import { ItemError, ItemScore, MAX_BATCH_ITEMS, ScoreItem } from '@rl/service-kit';

const Extra = z.record(z.string(), z.unknown());

/** An item of the shared contract, documented for this service (the conversation sits in `extra_info`). */
export const ModelScoreItem = ScoreItem.extend({
  extra_info: ScoreItem.shape.extra_info.openapi({
    description:
      'The conversation before the response: `messages` (chat messages, as verl’s raw_prompt), else `prompt` (chat messages, or a string taken as one user turn); the rest is passed to judge templates.',
    example: { messages: [{ role: 'user', content: 'What is 9+9?' }] },
  }),
  params: ScoreItem.shape.params.openapi({
    description: '`model` names a configured reward model, or `judge` a configured judge; without either the data source’s mapping (REWARD_ROUTES) decides.',
    example: { model: 'rm' },
  }),
}).openapi('ModelScoreItem');

/** A scoring request (HTTP body and NATS payload). */
export const ModelScoreRequest = z.object({ items: z.array(ModelScoreItem).min(1).max(MAX_BATCH_ITEMS) }).openapi('ModelScoreRequest');

/** An item's error, with the backend's diagnostics (a judge's raw text) when it has any. */
export const ModelItemError = ItemError.extend({ extra: Extra.optional() }).openapi('ModelItemError');

/** Results in request order. */
export const ModelScoreResponse = z.object({ results: z.array(z.union([ItemScore, ModelItemError])) }).openapi('ModelScoreResponse');
export type ModelScoreResponse = z.infer<typeof ModelScoreResponse>;
export type ModelSlot = ModelScoreResponse['results'][number];

/** One configured backend. */
export const BackendInfo = z
  .object({
    name: z.string(),
    kind: z.enum(['reward_model', 'judge']),
    ready: z.boolean(),
    data_sources: z.array(z.string()).openapi({ description: 'Data sources mapped to it (`*`: every data source not mapped elsewhere)' }),
  })
  .openapi('BackendInfo');

/** What `GET /v1/backends` answers. */
export const BackendList = z.object({ backends: z.array(BackendInfo) }).openapi('BackendList');
export type BackendList = z.infer<typeof BackendList>;
