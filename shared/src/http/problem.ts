import { z } from '@hono/zod-openapi';
import { AppError, ErrorCode, type ErrorBody } from '../errors.ts';

/** RFC 9457 problem document, carrying our `{error: {code, message}}` body too. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  error: ErrorBody;
}

/** Builds the problem+json `Response` for an {@link AppError}. */
export function problemResponse(err: AppError): Response {
  const body: Problem = {
    type: `urn:rl:error:${err.code}`,
    title: err.code,
    status: err.status,
    detail: err.message,
    error: err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details },
  };
  return new Response(JSON.stringify(body), {
    status: err.status,
    headers: { 'content-type': 'application/problem+json' },
  });
}

/** Renders a zod path as `items[3].solution_str`, the way users write it. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}

/** Turns a zod error into a 400 {@link AppError} whose message names every failing field. */
export function validationError(error: z.ZodError, where = 'body'): AppError {
  const issues = error.issues.slice(0, 20).map((i) => ({ path: formatPath(i.path), message: i.message }));
  const message = `invalid ${where}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
  return new AppError(ErrorCode.ValidationFailed, message, { status: 400, details: { issues } });
}

/** OpenAPI/zod schema of the problem document, for route definitions. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
  })
  .openapi('Problem');
