import type { z } from 'zod';
import { parsedEndpoint, type EndpointSpec } from '../nats/service.ts';
import { dataSourceAttributes } from '../telemetry/spans.ts';
import { continueTrace } from './continue-trace.ts';
import type { ItemScorer, RawScorer } from './scorer.ts';

/** NATS endpoint over a core that takes parsed items, validated with the same schema as `/v1/score`. */
export interface ItemScoreEndpoint<I> {
  subject: string;
  request: z.ZodType<{ items: I[] }>;
  scoreItems: ItemScorer<I>;
}

/** NATS endpoint over a core that validates the raw payload itself. */
export interface RawScoreEndpoint {
  subject: string;
  scoreRaw: RawScorer;
}

/**
 * The `score` endpoint of a reward service's NATS micro-service: the same body
 * and core call as `POST /v1/score`, in the same call context (request id and
 * `traceparent` from the NATS headers, the service's stop signal), continuing
 * the caller's trace.
 */
export function scoreEndpoint<I>(options: ItemScoreEndpoint<I> | RawScoreEndpoint): EndpointSpec {
  const { subject } = options;
  if ('scoreRaw' in options) {
    const { scoreRaw } = options;
    return {
      name: 'score',
      subject,
      handleRaw: (data, ctx) => continueTrace(ctx, { 'rl.edge': 'nats', 'rl.bytes': data.length }, () => scoreRaw(data, ctx)),
    };
  }
  const { request, scoreItems } = options;
  return parsedEndpoint({
    name: 'score',
    subject,
    request,
    handle: (req, ctx) =>
      continueTrace(ctx, { 'rl.edge': 'nats', ...dataSourceAttributes(req.items as ReadonlyArray<{ data_source?: unknown }>) }, async () => ({
        results: await scoreItems(req.items, ctx),
      })),
  });
}
