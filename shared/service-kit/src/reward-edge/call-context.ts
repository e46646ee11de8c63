import type { Context } from 'hono';
import type { AppEnv } from '../http/app.ts';
import { TRACEPARENT_HEADER, type Correlation } from '../nats/headers.ts';

/**
 * The one call context of every reward service: who is asking (`requestId`),
 * which trace the call continues (the caller's W3C `traceparent`) and when to
 * give up (`signal`). The HTTP and NATS edges fill it from their headers alike.
 */
export interface RewardCallContext extends Correlation {
  /** Aborted when the HTTP caller goes away, or when the service stops past its grace period (NATS). */
  signal?: AbortSignal | undefined;
}

/** The call context of an HTTP request: its abort signal, request id and `traceparent` header. */
export function httpCallContext(c: Context<AppEnv>): RewardCallContext {
  return { signal: c.req.raw.signal, requestId: c.get('requestId'), traceparent: c.req.header(TRACEPARENT_HEADER) };
}
