import { connect, createInbox, type NatsConnection } from '@nats-io/transport-node';

/** Options of {@link connectNats}. */
export interface NatsConnectOptions {
  /** Comma-separated URLs, e.g. `nats://127.0.0.1:4222`. */
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

/** Connection plus a live flag the readiness probe reads. */
export interface NatsHandle {
  readonly nc: NatsConnection;
  connected(): boolean;
}

/**
 * Connects to NATS and keeps reconnecting forever afterwards; `connected()`
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
    maxReconnectAttempts: -1,
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
