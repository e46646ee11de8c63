// The HTTP (and NATS) schemas of reward-story: the core's plain zod schemas
// (core/story-item.ts) with their OpenAPI names, descriptions and examples.
import { z } from '@hono/zod-openapi';
import { ItemError, MAX_BATCH_ITEMS, MAX_ITEM_TIMEOUT_MS, ScoreItem } from '@rl/service-kit';
import { COMPONENTS } from './core/components.ts';
import * as core from './core/story-item.ts';

/** One earlier turn of the conversation. */
export const StoryTurn = core.StoryTurn.extend({
  role: core.StoryTurn.shape.role.openapi({
    description: '`user`, `assistant` (or `system`); only `assistant` turns count as earlier replies',
    example: 'assistant',
  }),
}).openapi('StoryTurn');
export type StoryTurn = z.infer<typeof StoryTurn>;

const regex = core.RegexFormat.shape;
const jsonSchema = core.JsonSchemaFormat.shape;

/** What the reply must look like: a whole-reply regex (RE2 syntax) or a JSON schema the reply, parsed as JSON, must satisfy. */
export const OutputFormat = z
  .discriminatedUnion('type', [
    core.RegexFormat.extend({
      pattern: regex.pattern.openapi({ description: 'RE2 syntax (no look-around or back-references); must match the whole reply', example: '(?s)\\*.+\\*.*' }),
      flags: regex.flags.openapi({ description: 'any of i (ignore case), m (multi-line ^ $), s (. matches newline)' }),
    }),
    core.JsonSchemaFormat.extend({
      schema: jsonSchema.schema.openapi({ description: 'JSON Schema draft-07, or 2020-12 when `$schema` says so' }),
    }),
  ])
  .openapi('OutputFormat');
export type OutputFormat = z.infer<typeof OutputFormat>;

const context = core.StoryContext.shape;

/** The situation the reply answers: the fields the story converter writes next to each sample. */
export const StoryContext = core.StoryContext.extend({
  story_content: context.story_content.openapi({ description: 'The story setting (the system message’s story part); may be empty' }),
  conversation_history: z.array(StoryTurn).max(core.MAX_HISTORY_TURNS).openapi({ description: 'Turns before the current user input, oldest first' }),
  user_input: context.user_input.openapi({ description: 'The user’s current action or line, which the reply answers' }),
  target_response: context.target_response.openapi({ description: 'The dataset’s reply for this turn (the reference to beat); falls back to `ground_truth`' }),
  output_format: z
    .union([OutputFormat, z.string().max(core.MAX_TEXT_CHARS)])
    .nullable()
    .optional()
    .openapi({
      description:
        'A format spec, or a string: JSON text of a spec, or (anything not starting with `{`) the prose format instruction the story converter writes into the system prompt, which cannot be checked, so `format` is skipped',
    }),
}).openapi('StoryContext');
export type StoryContext = z.infer<typeof StoryContext>;

const signals = core.StorySignals.shape;

/** Per-token signals of the reply computed by the trainer's policy. */
export const StorySignals = core.StorySignals.extend({
  logprobs_with_context: signals.logprobs_with_context.openapi({ description: 'log p(token | prompt with the context r), natural log, one per reply token' }),
  logprobs_without_context: signals.logprobs_without_context.openapi({ description: 'log p(token | prompt without r), same tokens' }),
  entropies: signals.entropies.openapi({
    description: 'entropy in nats of the policy’s next-token distribution at each reply token (values down to -0.001 are rounding and count as 0)',
  }),
}).openapi('StorySignals');
export type StorySignals = z.infer<typeof StorySignals>;

/**
 * `params` as documented. Only the shape is checked here: the weights themselves
 * are checked per item (core/story-params.ts), so one bad override is that
 * item's `invalid_params` error, not a failed batch.
 */
export const StoryParamsDoc = z
  .looseObject({
    weights: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description: `Weight overrides for this item, partial: any of ${COMPONENTS.join(', ')}, each a number from 0 to 1000 (only ratios matter)`,
        example: { format: 0.3 },
      }),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(MAX_ITEM_TIMEOUT_MS)
      .optional()
      .openapi({ description: 'Accepted as in every reward service; not enforced here (one embedding call per batch, linear-time checks)' }),
  })
  .openapi('StoryParams', { description: 'Story reward options; any other key is the item’s invalid_params error' });

/** One reply to score. The context comes from `context`, or else from the same keys inside `extra_info`. */
export const StoryScoreItem = z
  .object({
    ...ScoreItem.shape,
    data_source: ScoreItem.shape.data_source.openapi({ example: 'story' }),
    solution_str: ScoreItem.shape.solution_str.openapi({ description: 'The reply to score', example: 'I draw my sword and step between you and the wolf.' }),
    ground_truth: core.StoryItemFields.shape.ground_truth.openapi({
      description: 'verl reward_model.ground_truth: the reference reply, used when the context has no target_response',
    }),
    params: StoryParamsDoc.optional(),
    context: StoryContext.optional(),
    signals: StorySignals.optional(),
  })
  .openapi('StoryScoreItem');
export type StoryScoreItem = z.infer<typeof StoryScoreItem>;

/** Body of `POST /v1/score` and of `reward.story.score`. */
export const StoryScoreRequest = z.object({ items: z.array(StoryScoreItem).min(1).max(MAX_BATCH_ITEMS) }).openapi('StoryScoreRequest');
export type StoryScoreRequest = z.infer<typeof StoryScoreRequest>;

const extra = core.StoryExtra.shape;

/** Diagnostics of one scored reply: every component (null when it did not apply) and the weights that made the total. */
export const StoryExtra = core.StoryExtra.extend({
  weights_used: extra.weights_used.openapi({ description: 'weights renormalised over the components that applied (the others are 0)' }),
  brevity: extra.brevity.openapi({ description: 'the brevity factor in N (1 unless the reply is shorter than half the reference); null without a reference' }),
}).openapi('StoryExtra');
export type StoryExtra = z.infer<typeof StoryExtra>;

/** A scored reply. */
export const StoryItemScore = z.object({ score: z.number(), extra: StoryExtra }).openapi('StoryItemScore');
export type StoryItemScore = z.infer<typeof StoryItemScore>;

/** Results in request order: a score or the item's error. */
export const StoryScoreResponse = z.object({ results: z.array(z.union([StoryItemScore, ItemError])) }).openapi('StoryScoreResponse');
export type StoryScoreResponse = z.infer<typeof StoryScoreResponse>;
