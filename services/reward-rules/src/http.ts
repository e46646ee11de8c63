import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { addScoreProtocolRoutes, addScoreRoute, protocolRoutes, scoreRoute, type AppEnv, type HttpScorer } from '@rl/service-kit';
import type { ScoreService } from './score-service.ts';

const v1ScoreRoute = scoreRoute({
  summary: 'Score a batch of model outputs with verl rule rewards',
  description:
    'Each item is dispatched by `data_source` exactly as verl’s `default_compute_score`. Results keep request order; a bad item gets `{error: {code, message}}` in its slot.',
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
  operationId: 'listDataSources',
  summary: 'List the data sources this service scores and the scorer each maps to',
  responses: { 200: { description: 'Dispatch table', content: { 'application/json': { schema: DataSources } } } },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [v1ScoreRoute, dataSourcesRoute, ...protocolRoutes];

/**
 * Adds the rule-reward routes to `app`. `/v1/score` (and the OpenRLHF and slime
 * routes over it) is documented from its zod schema but validated by the
 * scoring workers with that same schema: the body goes to them as raw bytes so
 * the event loop never parses per-item data.
 */
export function addRoutes(app: OpenAPIHono<AppEnv>, svc: ScoreService): void {
  const scorer: HttpScorer = { scoreRaw: (body, ctx) => svc.score(body, ctx) };
  addScoreRoute(app, v1ScoreRoute, scorer);
  app.openapi(dataSourcesRoute, async (c) => c.json(await svc.dataSources(), 200));
  addScoreProtocolRoutes(app, scorer);
}
