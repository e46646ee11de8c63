import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addProtocolRoutes, ProblemSchema, protocolRoutes, type AppEnv } from '@rl/service-kit';
import { storyProtocolScorer } from './protocol-scorer.ts';
import { StoryScoreRequest, StoryScoreResponse } from './schemas.ts';
import type { ScoreService } from './score-service.ts';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });

const scoreRoute = createRoute({
  method: 'post',
  path: '/v1/score',
  summary: 'Score story replies with embedding-based rewards',
  description:
    'Each item is a reply (`solution_str`) with its context (`context`, or the same keys in `extra_info`) and optional per-token signals. `score` is the weighted mean of the components that apply; every component is in `extra`. Results keep request order; a bad item gets `{error: {code, message}}` in its slot.',
  request: { body: { required: true, content: { 'application/json': { schema: StoryScoreRequest } } } },
  responses: {
    200: { description: 'One result per item, in order', content: { 'application/json': { schema: StoryScoreResponse } } },
    400: problem('Malformed request; the message names the failing field'),
    401: problem('Missing or wrong bearer token'),
    413: problem('Body larger than the configured limit'),
  },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [scoreRoute, ...protocolRoutes];

/** Adds the story-reward routes to `app`. */
export function addRoutes(app: OpenAPIHono<AppEnv>, svc: ScoreService): void {
  app.openapi(scoreRoute, async (c) => {
    const { items } = c.req.valid('json');
    const ctx = { signal: c.req.raw.signal, requestId: c.get('requestId'), traceparent: c.req.header('traceparent') };
    return c.json({ results: await svc.score(items, ctx) }, 200);
  });
  addProtocolRoutes(app, storyProtocolScorer(svc));
}
