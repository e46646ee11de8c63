import type { MsgHdrs } from '@nats-io/transport-node';
import { context, propagation, type Context } from '@opentelemetry/api';

/** Writes the active W3C trace context (`traceparent`, `tracestate`) into NATS headers. */
export function injectTraceHeaders(headers: MsgHdrs, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
}
