import { requestJson, ScoreResponse, type Correlation } from '@rl/service-kit';
import type { ScoreTransport } from './reward-types.ts';

type Connection = Parameters<typeof requestJson>[0];

/**
 * The real transport: shared's NATS request with chunking of large payloads,
 * typed `no_responders`/`timeout` errors and reply validation. The request is
 * bounded by `timeoutMs`; an abort stops further attempts, not a request in flight.
 */
export function natsScoreTransport(nc: Connection, correlation: Correlation = {}): ScoreTransport {
  return (subject, body, { timeoutMs }) => requestJson(nc, subject, body, { timeoutMs, response: ScoreResponse, ...correlation });
}
