import { connect, createInbox, type NatsConnection } from '@nats-io/transport-node';

/** Options of {@link connectNats}. */
export interface NatsConnectOptions {
  /**
   * Comma-separated URLs, e.g. `nats://a:4222,nats://b:4222`, tried in this
   * order: list the node nearest the service first. The cluster's other nodes,
   * which the server announces, are added to the list.
   */
  servers: string;
  /** Connection name shown by `nats server report connections`. */
  name: string;
  user?: string | undefined;
  pass?: string | undefined;
  token?: string | undefined;
  /** Prefix of the connection's inboxes (replies, watches, chunk pulls). @default '_INBOX' */
  inboxPrefix?: string | undefined;
  /** Give up on the first connect after this long. @default 5000 */
  connectTimeoutMs?: number;
}

/**
 * After losing its server the client goes straight to another one it has not
 * just tried; a server it tried within this long waits out the rest (plus jitter),
 * so a whole cluster restarting is not hammered. Attempts are unlimited.
 */
const RECONNECT_WAIT_MS = 1000;
const RECONNECT_JITTER_MS = 250;
/**
 * A dead node's socket closes at once; a partitioned one stays open, and is
 * given up after this many unanswered pings (10 s apart): ~30 s, not the
 * client default's 4 minutes.
 */
const PING_INTERVAL_MS = 10_000;
const MAX_PINGS_OUT = 3;

/** Connection plus a live flag the readiness probe reads. */
export interface NatsHandle {
  readonly nc: NatsConnection;
  connected(): boolean;
}

/**
 * Connects to NATS and keeps reconnecting forever afterwards (to any node of a
 * cluster; subscriptions are restored and publishes made meanwhile are buffered); `connected()`
 * turns false while the link is down so `/readyz` goes red instead of lying.
 */
export async function connectNats(options: NatsConnectOptions): Promise<NatsHandle> {
  const { servers, name, user, pass, token, inboxPrefix, connectTimeoutMs = 5000 } = options;
  const nc = await connect({
    servers: servers
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    name,
    timeout: connectTimeoutMs,
    noRandomize: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: RECONNECT_WAIT_MS,
    reconnectJitter: RECONNECT_JITTER_MS,
    pingInterval: PING_INTERVAL_MS,
    maxPingOut: MAX_PINGS_OUT,
    ...(user !== undefined ? { user, pass } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(inboxPrefix !== undefined ? { inboxPrefix } : {}),
  });
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') up = false;
      else if (s.type === 'reconnect') up = true;
    }
  })();
  return { nc, connected: () => up && !nc.isClosed() };
}

/**
 * A fresh inbox under the connection's inbox prefix, for subscriptions the kit
 * makes itself (one-shot requests, chunk serving): with per-user permissions a
 * connection may subscribe only under its own prefix.
 */
export function inboxOf(nc: NatsConnection): string {
  // The prefix lives in the connection's options, which the NatsConnection interface does not declare.
  return createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix);
}
