import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Options of {@link connectNats}. */
export interface NatsConnectOptions {
  /** Comma-separated URLs, e.g. `nats://127.0.0.1:4222`. */
  servers: string;
  /** Connection name shown by `nats server report connections`. */
  name: string;
  user?: string | undefined;
  pass?: string | undefined;
  token?: string | undefined;
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
  const { servers, name, user, pass, token, connectTimeoutMs = 5000 } = options;
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
