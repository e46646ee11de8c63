import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { RewardCallContext } from './call-context.ts';

/** Instrumentation scope of the spans the reward edge opens. */
const REWARD_EDGE_TRACER = '@rl/service-kit/reward-edge';

/** Name of the span every scoring call runs in, whichever edge it came through. */
export const SCORE_SPAN = 'reward.score';

/**
 * Runs `fn` in a server span whose parent is the caller's `traceparent`, so the
 * call continues the caller's trace: the span, the log lines written inside it
 * (the logger stamps the active span's ids) and requests sent on from it
 * (`correlationHeaders` injects the active span) all carry the caller's trace
 * id. With telemetry off (no SDK registered) the span is a no-op and a
 * forwarded `traceparent` travels on unchanged through the context.
 */
export function continueTrace<T>(ctx: RewardCallContext, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const active = context.active();
  const parent = ctx.traceparent === undefined ? active : propagation.extract(active, { traceparent: ctx.traceparent });
  const attrs = ctx.requestId === undefined ? attributes : { ...attributes, 'rl.request_id': ctx.requestId };
  return trace.getTracer(REWARD_EDGE_TRACER).startActiveSpan(SCORE_SPAN, { kind: SpanKind.SERVER, attributes: attrs }, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
