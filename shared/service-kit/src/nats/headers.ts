import { headers as createHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { context, trace } from '@opentelemetry/api';
import { injectTraceHeaders } from '../telemetry/propagation.ts';

/** Header carrying the caller's request id end to end (HTTP `X-Request-Id` too). */
const REQUEST_ID_HEADER = 'X-Request-Id';
/** W3C trace context header. */
export const TRACEPARENT_HEADER = 'traceparent';

/** Correlation data that travels with every request. */
export interface Correlation {
  requestId?: string | undefined;
  /** A `traceparent` received from upstream, forwarded when no span is active here. */
  traceparent?: string | undefined;
}

/** Builds request headers: request id, and the trace context (active span first, else the forwarded one). */
export function correlationHeaders(c: Correlation): MsgHdrs {
  const h = createHeaders();
  if (c.requestId !== undefined) h.set(REQUEST_ID_HEADER, c.requestId);
  if (trace.getSpan(context.active()) !== undefined) injectTraceHeaders(h);
  if (!h.has(TRACEPARENT_HEADER) && c.traceparent !== undefined) h.set(TRACEPARENT_HEADER, c.traceparent);
  return h;
}

/** Reads the correlation data from incoming headers. */
export function readCorrelation(h: MsgHdrs | undefined): Correlation {
  return {
    requestId: h?.has(REQUEST_ID_HEADER) ? h.get(REQUEST_ID_HEADER) : undefined,
    traceparent: h?.has(TRACEPARENT_HEADER) ? h.get(TRACEPARENT_HEADER) : undefined,
  };
}
