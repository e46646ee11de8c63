import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../http/app.ts';
import type { ScoreItem } from '../schemas/score.ts';
import { httpCallContext } from './call-context.ts';
import { addProtocolRoutes } from './protocol-routes.ts';
import { dataSourceAttributes } from '../telemetry/spans.ts';
import { continueTrace } from './continue-trace.ts';
import type { ScoreRoute } from './score-route.ts';
import { rawBatchScorer, tracedBatchScorer, type BatchScorer, type ItemScorer, type RawScorer } from './scorer.ts';

/**
 * What a reward service hands its HTTP edge: a core that takes items parsed
 * with the route's schema (plus the scorer behind the OpenRLHF and slime
 * routes, which get items of the shared contract), or a core that validates
 * the raw body itself (the protocol routes then go through it as JSON too).
 */
export type HttpScorer<I = ScoreItem> = { scoreItems: ItemScorer<I>; protocols: BatchScorer } | { scoreRaw: RawScorer };

/**
 * Mounts `POST /v1/score` over a service's core: one call context (request id,
 * abort signal, `traceparent`) per request, the call continuing the caller's trace.
 */
export function addScoreRoute<I>(app: OpenAPIHono<AppEnv>, route: ScoreRoute, scorer: HttpScorer<I>): void {
  if ('scoreRaw' in scorer) {
    const { scoreRaw } = scorer;
    // Documented from the zod schema but not parsed here: the raw body goes to the core as bytes.
    app.openAPIRegistry.registerPath(route);
    app.post(route.path, async (c) => {
      const body = new Uint8Array(await c.req.arrayBuffer());
      const ctx = httpCallContext(c);
      const json = await continueTrace(ctx, { 'rl.edge': 'http', 'rl.bytes': body.length }, () => scoreRaw(body, ctx));
      return c.body(json, 200, { 'content-type': 'application/json' });
    });
    return;
  }
  const { scoreItems } = scorer;
  app.openapi(route, async (c) => {
    // The route's schema is the service's `{ items }` request schema; the hook has validated the body with it.
    const { items } = c.req.valid('json') as { items: I[] };
    const ctx = httpCallContext(c);
    const results = await continueTrace(ctx, { 'rl.edge': 'http', ...dataSourceAttributes(items as ReadonlyArray<{ data_source?: unknown }>) }, () =>
      scoreItems(items, ctx),
    );
    return c.json({ results }, 200);
  });
}

/**
 * Mounts the OpenRLHF and slime reward protocols over the same core, each call
 * continuing the caller's trace. Separate from {@link addScoreRoute} so a
 * service keeps its routes in the order of its OpenAPI route list.
 */
export function addScoreProtocolRoutes<I>(app: OpenAPIHono<AppEnv>, scorer: HttpScorer<I>): void {
  const score = 'scoreRaw' in scorer ? rawBatchScorer(scorer.scoreRaw) : scorer.protocols;
  addProtocolRoutes(app, tracedBatchScorer(score, 'http'));
}
