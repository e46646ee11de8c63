import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { problemDoc, TRACEPARENT_HEADER, type AppEnv } from '@rl/service-kit';
import type { RolloutDeps } from './core/rollout/run-rollouts.ts';
import { addOpenAiRoutes, openAiRoutes } from './http-openai.ts';
import { tracedRollouts } from './rollout-trace.ts';
import { RolloutRequest, RolloutResponse } from './schemas/rollout.ts';

const rolloutRoute = createRoute({
  method: 'post',
  path: '/v1/rollouts',
  operationId: 'generateRollouts',
  tags: ['rollouts'],
  summary: 'Roll out a batch of verl samples, n trajectories each (GRPO groups)',
  description:
    'Each sample runs the agent loop named by `agent_name` (`single_turn_agent` by default, `tool_agent` with the configured tools and, when `interaction_kwargs.name` is set, that interaction). Results keep request order (sample 0’s n trajectories first) and carry `group`, `rollout_n` and the group `uid`; a failed trajectory gets `{error: {code, message}}` in its slot. Same body on NATS subject `rollout.generate`.',
  request: { body: { required: true, content: { 'application/json': { schema: RolloutRequest } } } },
  responses: {
    200: { description: 'One slot per trajectory, in order', content: { 'application/json': { schema: RolloutResponse } } },
    400: problemDoc('Malformed request; the message names the failing field'),
    401: problemDoc('Missing or wrong bearer token'),
    413: problemDoc('Body larger than the configured limit'),
  },
});

/** Route definitions, also the input of the OpenAPI document. */
export const routes = [rolloutRoute, ...openAiRoutes];

/** Adds the rollout route and the OpenAI-compatible routes to `app`. */
export function addRoutes(app: OpenAPIHono<AppEnv>, deps: RolloutDeps, startedAtS: number): void {
  app.openapi(rolloutRoute, async (c) =>
    c.json(await tracedRollouts(c.req.valid('json'), deps, c.req.raw.signal, 'http', c.req.header(TRACEPARENT_HEADER)), 200),
  );
  addOpenAiRoutes(app, deps.backend, startedAtS);
}
