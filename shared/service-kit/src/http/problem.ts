import { z } from '@hono/zod-openapi';
import type { AppError, ErrorBody } from '../errors.ts';

/** RFC 9457 problem document, carrying our `{error: {code, message}}` body too. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  error: ErrorBody;
}

/**
 * Builds the problem+json `Response` for an {@link AppError}; `status` is the
 * code's (ERROR_STATUS) unless an edge's compatibility contract says otherwise.
 */
export function problemResponse(err: AppError, status = err.status): Response {
  const body: Problem = {
    type: `urn:rl:error:${err.code}`,
    title: err.code,
    status,
    detail: err.message,
    error: err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details },
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });
}

/** OpenAPI/zod schema of the problem document (the `Problem` component of every service's document). */
const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
  })
  .openapi('Problem');

/** A route's error response in its OpenAPI definition: a problem document (`application/problem+json`) with this description. */
export function problemDoc(description: string) {
  return { description, content: { 'application/problem+json': { schema: ProblemSchema } } };
}
