import type { z } from 'zod';
import { AppError, ErrorCode } from './errors.ts';
import { assertJsonDepth } from './json-depth.ts';

/** Renders a zod path as `items[3].solution_str`, the way users write it. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}

/** Turns a zod error into a 400 {@link AppError} whose message names every failing field (first 20). */
export function validationError(error: z.ZodError, where = 'body'): AppError {
  const issues = error.issues.slice(0, 20).map((i) => ({ path: formatPath(i.path), message: i.message }));
  const message = `invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
  return new AppError(ErrorCode.ValidationFailed, message, { details: { issues } });
}

/** Parses JSON text, turning a syntax error into a 400 `bad_request` and hostile nesting into a 400 naming where. */
export function parseJsonText(text: string, where = 'body'): unknown {
  assertJsonDepth(text, where);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError(ErrorCode.BadRequest, `${where} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * A `params` failure of the batch contract: 400 `invalid_params` whose message
 * names the first failing key as `params.<key>` (all of them in `details`).
 */
export function invalidParamsError(error: z.ZodError, suffix = ''): AppError {
  const issues = error.issues.map((issue) => ({ path: ['params', ...issue.path.map(String)].join('.'), message: issue.message }));
  const first = issues[0];
  const message = first === undefined ? 'params: invalid' : `${first.path}: ${first.message}`;
  return new AppError(ErrorCode.InvalidParams, `${message}${suffix}`, { details: { issues } });
}
