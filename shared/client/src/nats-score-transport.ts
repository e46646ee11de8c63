import { dataSourceAttributes, requestJson, ScoreResponse, withNatsClientSpan, type Correlation } from '@rl/service-kit';
import type { ScoreTransport } from './reward-types.ts';

type Connection = Parameters<typeof requestJson>[0];

/**
 * The reward client's transport over NATS: the kit's request with chunking of large payloads,
 * typed `no_responders`/`timeout` errors and reply validation. The request is
 * bounded by `timeoutMs`; an abort stops further attempts, not a request in flight.
 * Each request is a client span named after its subject, with the items' data
 * sources (`rl.data_sources`); the reward service's span is its child.
 */
export function natsScoreTransport(nc: Connection, correlation: Correlation = {}): ScoreTransport {
  return (subject, body, { timeoutMs }) =>
    withNatsClientSpan(subject, dataSourceAttributes(body.items), () => requestJson(nc, subject, body, { timeoutMs, response: ScoreResponse, ...correlation }));
}
