import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { addScoreProtocolRoutes, addScoreRoute, protocolRoutes, scoreRoute, type AppEnv, type HttpScorer } from '@rl/service-kit';
import { BackendList, ModelScoreRequest, ModelScoreResponse } from './schemas.ts';
import type { ScoreService } from './score-service.ts';

const v1ScoreRoute = scoreRoute({
  summary: 'Score responses with trained reward models and LLM judges',
  description:
    'Each item goes to the backend its `params.model` or `params.judge` names, else to the one its `data_source` is mapped to (REWARD_ROUTES). The conversation comes from `extra_info.messages` (or `extra_info.prompt`). Results keep request order; a bad item gets `{error: {code, message}, extra?}` in its slot.',
  request: ModelScoreRequest,
  response: ModelScoreResponse,
});

const backendsRoute = createRoute({
  method: 'get',
  path: '/v1/backends',
  operationId: 'listBackends',
  summary: 'List the configured reward models and judges, whether each is ready, and the data sources mapped to it',
  responses: { 200: { description: 'Configured backends', content: { 'application/json': { schema: BackendList } } } },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [v1ScoreRoute, backendsRoute, ...protocolRoutes];

/** Adds the reward-model routes to `app`. */
export function addRoutes(app: OpenAPIHono<AppEnv>, svc: ScoreService): void {
  const scorer: HttpScorer = { scoreItems: (items, ctx) => svc.score(items, ctx), protocols: (items, ctx) => svc.score(items, ctx) };
  addScoreRoute(app, v1ScoreRoute, scorer);
  app.openapi(backendsRoute, (c) => c.json(svc.backends(), 200));
  addScoreProtocolRoutes(app, scorer);
}
