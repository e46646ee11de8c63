import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode, ScoreResponse, dataSourceAttributes, requestJson, withNatsClientSpan } from '@rl/service-kit';
import type { SlotResult } from '../core/score-batch.ts';
import type { RunRemote } from '../score-service.ts';

/** Forwards items to another reward service over NATS with the shared batch contract. */
export function createRemoteScorer(nc: NatsConnection | undefined, timeoutMs: number): RunRemote {
  return async function runRemote(subject, items, ctx) {
    if (nc === undefined) {
      throw new AppError(ErrorCode.SandboxUnavailable, `NATS is disabled, so ${subject} cannot be reached`);
    }
    ctx.signal?.throwIfAborted();
    // The caller's request id and trace context travel on to the next service, under a client
    // span (named after the subject, with the forwarded items' data sources) of this call's span.
    const reply = await withNatsClientSpan(subject, dataSourceAttributes(items), () =>
      requestJson(nc, subject, { items }, { timeoutMs, response: ScoreResponse, requestId: ctx.requestId, traceparent: ctx.traceparent }),
    );
    return reply.results as SlotResult[];
  };
}
