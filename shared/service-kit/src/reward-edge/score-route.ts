import { createRoute, type z } from '@hono/zod-openapi';
import { problemDoc } from '../http/problem.ts';
import { ScoreRequest, ScoreResponse } from '../schemas/score.ts';

/** What differs between the reward services' `/v1/score` documentation. */
export interface ScoreRouteDoc {
  summary: string;
  description: string;
  /** Body schema (validated on HTTP and on the NATS subject alike). @default ScoreRequest */
  request?: z.ZodType;
  /** Response schema. @default ScoreResponse */
  response?: z.ZodType;
}

/** The `POST /v1/score` route every reward service serves: the shared batch contract, documented from its zod schemas. */
export function scoreRoute({ summary, description, request = ScoreRequest, response = ScoreResponse }: ScoreRouteDoc) {
  return createRoute({
    method: 'post',
    path: '/v1/score',
    operationId: 'scoreItems',
    summary,
    description,
    request: { body: { required: true, content: { 'application/json': { schema: request } } } },
    responses: {
      200: { description: 'One result per item, in order', content: { 'application/json': { schema: response } } },
      400: problemDoc('Malformed request; the message names the failing field'),
      401: problemDoc('Missing or wrong bearer token'),
      413: problemDoc('Body larger than the configured limit'),
    },
  });
}

/** A `/v1/score` route definition as {@link scoreRoute} builds it. */
export type ScoreRoute = ReturnType<typeof scoreRoute>;
