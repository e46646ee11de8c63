// The story item on the wire, one schema per name: validation, the types the core
// works on and the OpenAPI document (schemas.ts adds only the batch envelope). The
// kit's `z` carries `.openapi()` without hono, so the core stays free of transport.
import { MAX_ITEM_TIMEOUT_MS, ScoreItem, z } from '@rl/service-kit/core';
import { COMPONENTS, type Component } from './weights.ts';

/** Longest accepted story, turn, user input or reference text. */
export const MAX_TEXT_CHARS = 262_144;
/** Most turns in one `conversation_history`. */
export const MAX_HISTORY_TURNS = 1_024;
/** Longest accepted output-format regex. */
export const MAX_PATTERN_CHARS = 16_384;
/** Most per-token values in one signal array (verl responses stay far below). */
export const MAX_SIGNAL_TOKENS = 262_144;

const text = () => z.string().max(MAX_TEXT_CHARS);

/** One earlier turn of the conversation. */
export const StoryTurn = z
  .object({
    role: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: '`user`, `assistant` (or `system`); only `assistant` turns count as earlier replies', example: 'assistant' }),
    content: text(),
  })
  .openapi('StoryTurn');
export type StoryTurn = z.infer<typeof StoryTurn>;

/** A whole-reply regex (RE2 syntax) the reply must match. */
const RegexFormat = z.object({
  type: z.literal('regex'),
  pattern: z
    .string()
    .max(MAX_PATTERN_CHARS)
    .openapi({ description: 'RE2 syntax (no look-around or back-references); must match the whole reply', example: '(?s)\\*.+\\*.*' }),
  flags: z
    .string()
    .regex(/^[ims]*$/)
    .optional()
    .openapi({ description: 'any of i (ignore case), m (multi-line ^ $), s (. matches newline)' }),
});

/** A JSON schema the reply, parsed as JSON, must satisfy. */
const JsonSchemaFormat = z.object({
  type: z.literal('json_schema'),
  schema: z.union([z.record(z.string(), z.unknown()), z.boolean()]).openapi({ description: 'JSON Schema draft-07, or 2020-12 when `$schema` says so' }),
});

/** What the reply must look like: a whole-reply regex (RE2 syntax) or a JSON schema the reply, parsed as JSON, must satisfy. */
export const OutputFormat = z.discriminatedUnion('type', [RegexFormat, JsonSchemaFormat]).openapi('OutputFormat');
export type OutputFormat = z.infer<typeof OutputFormat>;

/** The situation the reply answers: the fields the story converter writes next to each sample. */
export const StoryContext = z
  .object({
    story_content: text().openapi({ description: 'The story setting (the system message’s story part); may be empty' }),
    conversation_history: z.array(StoryTurn).max(MAX_HISTORY_TURNS).openapi({ description: 'Turns before the current user input, oldest first' }),
    user_input: text().openapi({ description: 'The user’s current action or line, which the reply answers' }),
    target_response: text()
      .nullable()
      .optional()
      .openapi({ description: 'The dataset’s reply for this turn (the reference to beat); falls back to `ground_truth`' }),
    output_format: z.union([OutputFormat, text()]).nullable().optional().openapi({
      description:
        'A format spec, or a string: JSON text of a spec, or (anything not starting with `{`) the prose format instruction the story converter writes into the system prompt, which cannot be checked, so `format` is skipped',
    }),
  })
  .openapi('StoryContext');
export type StoryContext = z.infer<typeof StoryContext>;

// A log-probability above 0 means probabilities or logits were sent; 0.001 leaves room for rounding.
const logprobs = () => z.array(z.number().max(0.001)).max(MAX_SIGNAL_TOKENS);

/** Per-token signals of the reply computed by the trainer's policy. */
export const StorySignals = z
  .object({
    logprobs_with_context: logprobs().openapi({ description: 'log p(token | prompt with the context r), natural log, one per reply token' }),
    logprobs_without_context: logprobs().openapi({ description: 'log p(token | prompt without r), same tokens' }),
    entropies: z.array(z.number().min(-0.001)).max(MAX_SIGNAL_TOKENS).optional().openapi({
      description: 'entropy in nats of the policy’s next-token distribution at each reply token (values down to -0.001 are rounding and count as 0)',
    }),
  })
  .openapi('StorySignals');
export type StorySignals = z.infer<typeof StorySignals>;

/**
 * `params` as sent, documented as `StoryParams`. Only the shape is checked here:
 * story-params.ts parses it strictly per item, so one bad override is that
 * item's `invalid_params` error, not a failed batch.
 */
const StoryParamsAsSent = z
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
    ground_truth: text()
      .nullable()
      .optional()
      .openapi({ description: 'verl reward_model.ground_truth: the reference reply, used when the context has no target_response' }),
    params: StoryParamsAsSent.optional(),
    context: StoryContext.optional(),
    signals: StorySignals.optional(),
  })
  .openapi('StoryScoreItem');
export type StoryScoreItem = z.infer<typeof StoryScoreItem>;

const component = z.number().min(0).max(1).nullable();

/** Diagnostics of one scored reply: every component (null when it did not apply) and the weights that made the total. */
export const StoryExtra = z
  .object({
    ...(Object.fromEntries(COMPONENTS.map((c) => [c, component])) as Record<Component, typeof component>),
    weights_used: z.record(z.string(), z.number()).openapi({ description: 'weights renormalised over the components that applied (the others are 0)' }),
    total: z.number(),
    model: z.string(),
    repeat_cosine: z.number().nullable(),
    repeat_overlap: z.number().nullable(),
    reference_delta: z.number().nullable(),
    brevity: z
      .number()
      .nullable()
      .openapi({ description: 'the brevity factor in N (1 unless the reply is shorter than half the reference); null without a reference' }),
    info_gain_nats: z.number().nullable(),
    entropy_nats: z.number().nullable(),
  })
  .openapi('StoryExtra');
export type StoryExtra = z.infer<typeof StoryExtra>;

/** A scored reply. */
export const StoryItemScore = z.object({ score: z.number(), extra: StoryExtra }).openapi('StoryItemScore');
export type StoryItemScore = z.infer<typeof StoryItemScore>;
