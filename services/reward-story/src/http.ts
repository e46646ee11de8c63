import type { OpenAPIHono } from '@hono/zod-openapi';
import { addScoreProtocolRoutes, addScoreRoute, protocolRoutes, scoreRoute, type AppEnv, type HttpScorer } from '@rl/service-kit';
import { storyProtocolScorer } from './protocol-scorer.ts';
import type { StoryScoreItem } from './core/story-item.ts';
import { StoryScoreRequest, StoryScoreResponse } from './schemas.ts';
import type { ScoreService } from './score-service.ts';

const v1ScoreRoute = scoreRoute({
  summary: 'Score story replies with embedding-based rewards',
  description:
    'Each item is a reply (`solution_str`) with its context (`context`, or the same keys in `extra_info`) and optional per-token signals. `score` is the weighted mean of the components that apply; every component is in `extra`. Results keep request order; a bad item gets `{error: {code, message}}` in its slot.',
  request: StoryScoreRequest,
  response: StoryScoreResponse,
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [v1ScoreRoute, ...protocolRoutes];

/** Adds the story-reward routes to `app`. */
export function addRoutes(app: OpenAPIHono<AppEnv>, svc: ScoreService): void {
  const scorer: HttpScorer<StoryScoreItem> = { scoreItems: (items, ctx) => svc.score(items, ctx), protocols: storyProtocolScorer(svc) };
  addScoreRoute(app, v1ScoreRoute, scorer);
  addScoreProtocolRoutes(app, scorer);
}
