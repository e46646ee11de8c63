import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode, fromErrorBody, isErrorCode, requestJson, ScoreResponse, type ScoreItem, type ScoreResult } from '@rl/service-kit';

/** One reward service at one address (an HTTP base URL, or a NATS subject): what the CLI scores with. */
export interface ScoreEndpoint {
  readonly describe: string;
  score(items: ScoreItem[]): Promise<ScoreResult[]>;
  close(): Promise<void>;
}

/** `POST {url}/v1/score`, with an optional bearer token. */
export function httpScoreEndpoint(url: string, timeoutMs: number, token?: string): ScoreEndpoint {
  const endpoint = `${url.replace(/\/+$/, '')}/v1/score`;
  return {
    describe: endpoint,
    async score(items) {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ items }),
        signal: AbortSignal.timeout(timeoutMs),
      }).catch((err: unknown) => {
        throw new AppError(ErrorCode.Unavailable, `cannot reach ${endpoint}: ${String(err)}`, { retryable: true, cause: err });
      });
      const body: unknown = await res.json().catch(() => undefined);
      if (!res.ok) {
        const e = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
        if (e !== undefined && isErrorCode(e.code) && typeof e.message === 'string') throw fromErrorBody({ code: e.code, message: e.message });
        throw new AppError(ErrorCode.Unavailable, `${endpoint} answered HTTP ${res.status}`);
      }
      return ScoreResponse.parse(body).results;
    },
    close: async () => {},
  };
}

/** NATS credentials: a user (its replies come to `_INBOX.<user>`, all that user may read) and its password. */
export interface NatsCredentials {
  user?: string | undefined;
  pass?: string | undefined;
}

/** Request/reply on `subject` (e.g. `reward.rules.score`) through the queue group. */
export async function natsScoreEndpoint(servers: string, subject: string, timeoutMs: number, auth: NatsCredentials = {}): Promise<ScoreEndpoint> {
  const nc: NatsConnection = await connect({
    servers: servers.split(','),
    name: 'rl-rewards-cli',
    timeout: Math.min(timeoutMs, 10_000),
    ...(auth.user !== undefined && { user: auth.user, pass: auth.pass, inboxPrefix: `_INBOX.${auth.user}` }),
  });
  return {
    describe: `${servers} ${subject}`,
    score: async (items) => (await requestJson(nc, subject, { items }, { timeoutMs, response: ScoreResponse })).results,
    close: () => nc.close(),
  };
}
