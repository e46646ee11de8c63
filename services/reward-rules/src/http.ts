import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addProtocolRoutes, ProblemSchema, protocolRoutes, ScoreRequest, ScoreResponse, type AppEnv, type BatchScorer, type ProtocolSlot } from '@rl/service-kit';
import type { ScoreService } from './score-service.ts';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });

const scoreRoute = createRoute({
  method: 'post',
  path: '/v1/score',
  summary: 'Score a batch of model outputs with verl rule rewards',
  description:
    'Each item is dispatched by `data_source` exactly as verl’s `default_compute_score`. Results keep request order; a bad item gets `{error: {code, message}}` in its slot.',
  request: { body: { required: true, content: { 'application/json': { schema: ScoreRequest } } } },
  responses: {
    200: { description: 'One result per item, in order', content: { 'application/json': { schema: ScoreResponse } } },
    400: problem('Malformed request; the message names the failing field'),
    401: problem('Missing or wrong bearer token'),
    413: problem('Body larger than the configured limit'),
  },
});

const DataSources = z
  .object({
    data_sources: z.array(z.object({ data_source: z.string(), scorer: z.string() })),
    prefixes: z.array(z.object({ prefix: z.string(), scorer: z.string() })),
  })
  .openapi('DataSources');

const dataSourcesRoute = createRoute({
  method: 'get',
  path: '/v1/data-sources',
  summary: 'List the data sources this service scores and the scorer each maps to',
  responses: { 200: { description: 'Dispatch table', content: { 'application/json': { schema: DataSources } } } },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [scoreRoute, dataSourcesRoute, ...protocolRoutes];

/**
 * Adds the rule-reward routes to `app`. `/v1/score` is documented from its zod
 * schema but validated by the scoring workers with that same schema: the body
 * goes to them as raw bytes so the event loop never parses per-item data.
 */
export function addRoutes(app: OpenAPIHono<AppEnv>, svc: ScoreService): void {
  app.openAPIRegistry.registerPath(scoreRoute);
  app.post(scoreRoute.path, async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    const ctx = { signal: c.req.raw.signal, requestId: c.get('requestId'), traceparent: c.req.header('traceparent') };
    return c.body(await svc.score(body, ctx), 200, { 'content-type': 'application/json' });
  });
  app.openapi(dataSourcesRoute, async (c) => c.json(await svc.dataSources(), 200));
  addProtocolRoutes(app, protocolScorer(svc));
}

/** The OpenRLHF and slime edges build items of our contract; they go to the workers as the same JSON body `/v1/score` takes. */
function protocolScorer(svc: ScoreService): BatchScorer {
  return async (items, ctx) => (JSON.parse(await svc.score(JSON.stringify({ items }), ctx)) as { results: ProtocolSlot[] }).results;
}
