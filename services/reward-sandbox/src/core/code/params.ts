import { z } from 'zod';
import { invalidParamsError } from '@rl/service-kit/core';
import { FUSION_LANGUAGES } from '../fusion-languages.ts';

/** Longest per-case timeout a caller may ask for, in seconds (the /run_code cap). */
export const MAX_CASE_TIMEOUT_S = 600;

/**
 * Keyword options of verl's sandbox_fusion `compute_score` / `check_correctness`, with their defaults:
 * `continuous=False`, `timeout=10` (seconds, used for both compile and run), `memory_limit_mb=1024`
 * (verl's reward loader default; -1 = the service default), `language="python"` (check_correctness).
 */
export const CodeParams = z.strictObject({
  continuous: z.boolean().default(false),
  timeout: z.number().gt(0).max(MAX_CASE_TIMEOUT_S).default(10),
  memory_limit_mb: z
    .number()
    .int()
    .min(-1)
    .max(65_536)
    .refine((v) => v !== 0, { message: 'must be positive, or -1 for the service default' })
    .default(1024),
  language: z.enum(FUSION_LANGUAGES).default('python'),
});
/** Parsed code-scoring options. */
export type CodeParams = z.infer<typeof CodeParams>;

/** Parses raw `params` (undefined = all defaults); a failure is 400 `invalid_params` naming the first failing key. */
export function parseCodeParams(raw: unknown): CodeParams {
  const parsed = CodeParams.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  throw invalidParamsError(parsed.error);
}
