import { z } from './zod.ts';
import { ErrorCode } from '../errors.ts';

/** Longest accepted `solution_str`, in UTF-16 units (verl responses are ~32k tokens at most). */
export const MAX_SOLUTION_CHARS = 262_144;
/** Longest accepted `data_source`. */
export const MAX_DATA_SOURCE_CHARS = 256;
/** Longest string anywhere inside `ground_truth` (code test suites can be large). */
const MAX_GROUND_TRUTH_STRING_CHARS = 4 * 1024 * 1024;
/** Most items in one request. */
export const MAX_BATCH_ITEMS = 65_536;
/** Longest per-item time budget a caller may ask for. */
export const MAX_ITEM_TIMEOUT_MS = 600_000;

function longestString(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length;
  if (depth > 32 || value === null || typeof value !== 'object') return 0;
  let max = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) max = Math.max(max, longestString(v, depth + 1));
  return max;
}

/** Any JSON value; verl passes strings, lists, numbers or `{target: [...]}` objects. */
export const GroundTruth = z
  .unknown()
  .refine((v) => v !== undefined, { message: 'ground_truth is required' })
  .refine((v) => longestString(v) <= MAX_GROUND_TRUTH_STRING_CHARS, {
    message: `ground_truth strings must be at most ${MAX_GROUND_TRUTH_STRING_CHARS} characters`,
  })
  .openapi({ description: 'Reference answer: a string, a list of strings, a number, or an object such as {"target": [...]}.' });

/** verl keyword options of the scoring function, plus our `timeout_ms` budget. */
export const ScoreParams = z
  .looseObject({
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(MAX_ITEM_TIMEOUT_MS)
      .optional()
      .openapi({ description: 'Per-item time budget in ms; an item over budget gets the error `timeout`.' }),
  })
  .openapi('ScoreParams', { description: 'Keyword options of the matching verl function (method, format_score, score, ...). Defaults equal verl’s.' });

/** One item to score: the arguments of verl's `compute_score`. */
export const ScoreItem = z
  .object({
    data_source: z.string().min(1).max(MAX_DATA_SOURCE_CHARS).openapi({ example: 'openai/gsm8k' }),
    solution_str: z.string().max(MAX_SOLUTION_CHARS).openapi({ example: 'The answer is #### 18' }),
    ground_truth: GroundTruth,
    extra_info: z.record(z.string(), z.unknown()).nullable().optional(),
    params: ScoreParams.optional(),
  })
  .openapi('ScoreItem');
export type ScoreItem = z.infer<typeof ScoreItem>;

/** A batch scoring request (HTTP `POST /v1/score` body and NATS payload). */
export const ScoreRequest = z
  .object({
    items: z.array(ScoreItem).min(1).max(MAX_BATCH_ITEMS),
  })
  .openapi('ScoreRequest');
export type ScoreRequest = z.infer<typeof ScoreRequest>;

/** Error in one item's slot. */
export const ItemError = z
  .object({
    error: z.object({
      code: z.enum(Object.values(ErrorCode) as [string, ...string[]]),
      message: z.string(),
    }),
  })
  .openapi('ItemError');
export type ItemError = z.infer<typeof ItemError>;

/** A scored item: the reward and the scorer's diagnostics. */
export const ItemScore = z
  .object({
    score: z.number(),
    extra: z.record(z.string(), z.unknown()),
  })
  .openapi('ItemScore');
export type ItemScore = z.infer<typeof ItemScore>;

/** One result slot. */
export const ScoreResult = z.union([ItemScore, ItemError]).openapi('ScoreResult');
export type ScoreResult = z.infer<typeof ScoreResult>;

/** Results in request order. */
export const ScoreResponse = z
  .object({
    results: z.array(ScoreResult),
    deterministic: z.boolean().optional().openapi({
      description: 'true: every score depends on its item alone (no clock, sandbox or model), so a caller may reuse it for an identical item',
    }),
  })
  .openapi('ScoreResponse');
export type ScoreResponse = z.infer<typeof ScoreResponse>;
