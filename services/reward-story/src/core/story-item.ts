// What the story core takes and gives, in plain zod: the HTTP schemas (schemas.ts) add
// the OpenAPI names and descriptions on top, so the core never loads hono or zod-openapi.
import type { ScoreItem } from '@rl/service-kit/core';
import { z } from 'zod';
import { COMPONENTS, type Component } from './components.ts';

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
export const StoryTurn = z.object({ role: z.string().min(1).max(64), content: text() });
export type StoryTurn = z.infer<typeof StoryTurn>;

/** A whole-reply regex (RE2 syntax) the reply must match. */
export const RegexFormat = z.object({
  type: z.literal('regex'),
  pattern: z.string().max(MAX_PATTERN_CHARS),
  flags: z
    .string()
    .regex(/^[ims]*$/)
    .optional(),
});

/** A JSON schema the reply, parsed as JSON, must satisfy. */
export const JsonSchemaFormat = z.object({
  type: z.literal('json_schema'),
  schema: z.union([z.record(z.string(), z.unknown()), z.boolean()]),
});

/** What the reply must look like. */
export const OutputFormat = z.discriminatedUnion('type', [RegexFormat, JsonSchemaFormat]);
export type OutputFormat = z.infer<typeof OutputFormat>;

/** The situation the reply answers: the fields the story converter writes next to each sample. */
export const StoryContext = z.object({
  story_content: text(),
  conversation_history: z.array(StoryTurn).max(MAX_HISTORY_TURNS),
  user_input: text(),
  target_response: text().nullable().optional(),
  // A spec, or a string: JSON text of a spec, or the converter's prose instruction (not checkable).
  output_format: z.union([OutputFormat, text()]).nullable().optional(),
});
export type StoryContext = z.infer<typeof StoryContext>;

// A log-probability above 0 means probabilities or logits were sent; 0.001 leaves room for rounding.
const logprobs = () => z.array(z.number().max(0.001)).max(MAX_SIGNAL_TOKENS);

/** Per-token signals of the reply computed by the trainer's policy. */
export const StorySignals = z.object({
  logprobs_with_context: logprobs(),
  logprobs_without_context: logprobs(),
  // Entropies down to -0.001 are rounding and count as 0.
  entropies: z.array(z.number().min(-0.001)).max(MAX_SIGNAL_TOKENS).optional(),
});
export type StorySignals = z.infer<typeof StorySignals>;

/** The story-specific fields of an item, next to the shared contract's. */
export const StoryItemFields = z.object({
  ground_truth: text().nullable().optional(),
  context: StoryContext.optional(),
  signals: StorySignals.optional(),
});

/**
 * One reply to score as the edges hand it over: the shared item with a text
 * reference, the story fields, and `params` as sent (checked per item by
 * story-params.ts, so a bad override is that item's error).
 */
export type StoryScoreItem = Omit<ScoreItem, 'ground_truth' | 'params'> & z.infer<typeof StoryItemFields> & { params?: Record<string, unknown> | undefined };

const component = z.number().min(0).max(1).nullable();

/** Diagnostics of one scored reply: every component (null when it did not apply) and the weights that made the total. */
export const StoryExtra = z.object({
  ...(Object.fromEntries(COMPONENTS.map((c) => [c, component])) as Record<Component, typeof component>),
  weights_used: z.record(z.string(), z.number()),
  total: z.number(),
  model: z.string(),
  repeat_cosine: z.number().nullable(),
  repeat_overlap: z.number().nullable(),
  reference_delta: z.number().nullable(),
  brevity: z.number().nullable(),
  info_gain_nats: z.number().nullable(),
  entropy_nats: z.number().nullable(),
});
export type StoryExtra = z.infer<typeof StoryExtra>;

/** A scored reply. */
export type StoryItemScore = { score: number; extra: StoryExtra };
