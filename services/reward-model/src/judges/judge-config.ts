// The judges file (REWARD_JUDGES_FILE): every judge the service may call, fixed
// at start-up. A request can only name a judge, never an address, a prompt or a key.
import { AppError, ErrorCode, formatPath } from '@rl/service-kit/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How a score is read from the judge's answer (after `<think>` blocks are removed). */
export const ParserConfig = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('pattern'),
    /** A JavaScript regular expression whose first capture group is the number, e.g. `Score:\s*(\d+(?:\.\d+)?)`. */
    pattern: z.string().min(1),
    /** Regex flags. @default 'i' */
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'only the flags i, m, s and u')
      .default('i'),
    /** Which match counts when the answer has several (judges often restate a scale first). @default 'last' */
    match: z.enum(['first', 'last']).default('last'),
  }),
  /** The number inside the last `\boxed{...}`. */
  z.strictObject({ type: z.literal('boxed') }),
  /** A number (or numeric string) at `field` (dotted path) of the JSON object in the answer, bare or in a ``` fence. */
  z.strictObject({ type: z.literal('json'), field: z.string().min(1).default('score') }),
  /** The last of the `yes` or `no` words in the answer: 1 or 0 (score_range is not used). */
  z.strictObject({
    type: z.literal('yes_no'),
    /** @default ['yes'] */
    yes: z.array(z.string().min(1)).min(1).default(['yes']),
    /** @default ['no'] */
    no: z.array(z.string().min(1)).min(1).default(['no']),
  }),
]);
export type ParserConfig = z.infer<typeof ParserConfig>;

/** One judge: an OpenAI-compatible chat endpoint, a prompt, a parser and its limits. */
export const JudgeConfig = z.strictObject({
  /** Base URL with `/v1` (requests go to `<base_url>/chat/completions`). */
  base_url: z.url({ protocol: /^https?$/, message: 'expected an http(s) URL' }),
  /** The served model name sent as `model`. */
  model: z.string().min(1),
  /** Environment variable holding the API key (sent as `Authorization: Bearer`); none sent without it. */
  api_key_env: z.string().regex(ENV_NAME, 'expected an environment variable name').optional(),
  /** Jinja template of the system message (same variables as `prompt`); none without it. */
  system: z.string().min(1).optional(),
  /** Jinja template of the user message over question, response, reference, messages, extra_info and data_source. */
  prompt: z.string().min(1),
  sampling: z
    .strictObject({
      /** @default 0 */
      temperature: z.number().min(0).max(2).default(0),
      /** @default 1024 */
      max_tokens: z.number().int().positive().default(1024),
      top_p: z.number().gt(0).max(1).optional(),
      seed: z.number().int().optional(),
      /** Extra request fields, e.g. `chat_template_kwargs: {enable_thinking: false}` for vLLM. */
      extra_body: z.record(z.string(), z.unknown()).optional(),
    })
    .default({ temperature: 0, max_tokens: 1024 }),
  parser: ParserConfig,
  /** The judge's scale [low, high], mapped linearly onto [0, 1]; a score outside it is unparseable. @default [0, 1] */
  score_range: z
    .tuple([z.number(), z.number()])
    .refine(([lo, hi]) => hi > lo, 'expected [low, high] with high > low')
    .default([0, 1]),
  limits: z
    .strictObject({
      /** Requests in flight at once. @default 8 */
      max_concurrent: z.number().int().positive().default(8),
      /** Requests per minute (each attempt counts); unlimited without it. */
      max_rpm: z.number().positive().optional(),
      /** Tokens per minute, counted as `estimated_tokens_per_request` per attempt (verl's rate_limited manager). */
      max_tpm: z.number().positive().optional(),
      /** @default 2000 (verl's default) */
      estimated_tokens_per_request: z.number().int().positive().default(2000),
    })
    .default({ max_concurrent: 8, estimated_tokens_per_request: 2000 }),
  /** An item's deadline from its first attempt (once it has a slot and its turn on the rates): every attempt and wait after. @default 60000 */
  timeout_ms: z.number().int().positive().default(60_000),
  retries: z
    .strictObject({
      /** Attempts after the first, on 429, 5xx or a refused connection. @default 3 */
      max: z.number().int().nonnegative().default(3),
      /** First backoff, doubled per retry; a longer `Retry-After` wins. @default 500 */
      base_ms: z.number().int().nonnegative().default(500),
    })
    .default({ max: 3, base_ms: 500 }),
  cache: z
    .strictObject({
      /** Answers identical requests (same judge, rendered prompt and sampling) from memory. @default true */
      enabled: z.boolean().default(true),
      /** @default 10000 */
      max_entries: z.number().int().positive().default(10_000),
    })
    .default({ enabled: true, max_entries: 10_000 }),
});
export type JudgeConfig = z.infer<typeof JudgeConfig>;

/** The judges file: judges by name. */
export const JudgesFile = z.strictObject({
  judges: z.record(z.string().regex(NAME, 'a judge name is letters, digits, _, . and -, at most 64'), JudgeConfig),
});
export type JudgesFile = z.infer<typeof JudgesFile>;

/** Parses the judges file; every problem is an `invalid_config` naming `where` and the key. */
export function parseJudgesFile(text: string, where: string): JudgesFile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new AppError(ErrorCode.InvalidConfig, `${where}: not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = JudgesFile.safeParse(raw ?? { judges: {} });
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 20).map((i) => `${formatPath(i.path)}: ${i.message}`);
    throw new AppError(ErrorCode.InvalidConfig, `${where}: ${problems.join('; ')}`, { details: { problems } });
  }
  return parsed.data;
}
