import { AppError, type BoundedQueue, ErrorCode, retry } from '@rl/service-kit';
import type { z } from 'zod';

/** How an {@link HttpJsonClient} talks to one server. */
export interface HttpJsonOptions {
  /** Deadline of one attempt. */
  timeoutMs: number;
  /** Retries after a 5xx, 429 or connection failure (not after a timeout or another 4xx). */
  maxRetries: number;
  /** Delay before the first retry; doubled each time, and at least what `Retry-After` asks. */
  retryBaseMs: number;
  /** Bounds requests in flight (one slot per attempt). */
  semaphore: BoundedQueue;
  apiKey?: string | undefined;
  /** Waits between retries; injected so tests need no real time. @default a timer */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** POSTs JSON and validates the reply. */
export type HttpJsonClient = <T>(url: string, body: unknown, schema: z.ZodType<T>, signal?: AbortSignal) => Promise<T>;

const MAX_RETRY_AFTER_MS = 30_000;

class Retryable extends Error {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 0) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A JSON client for OpenAI-compatible servers with explicit timeouts, bounded
 * concurrency and exponential-backoff retries of transient failures. Failures
 * end as {@link AppError}s: `unavailable` (gave up), `timeout`, or `bad_request`
 * carrying the server's own message for a 4xx.
 */
export function createHttpJsonClient(o: HttpJsonOptions): HttpJsonClient {
  const { sleep, fetch: doFetch = globalThis.fetch } = o;
  return async function postJson(url, body, schema, signal) {
    const payload = JSON.stringify(body);
    try {
      return await retry(() => o.semaphore.run(() => attemptOnce(url, payload, schema, signal), signal), {
        retries: o.maxRetries,
        isRetryable: (err) => err instanceof Retryable,
        delayMs: (attempt, err) => Math.min(MAX_RETRY_AFTER_MS, Math.max((err as Retryable).retryAfterMs, o.retryBaseMs * 2 ** (attempt - 1))),
        signal,
        ...(sleep && { sleep }),
      });
    } catch (err) {
      if (!(err instanceof Retryable)) throw err;
      throw new AppError(ErrorCode.Unavailable, `${url} failed after ${o.maxRetries + 1} attempts: ${err.message}`, { retryable: true });
    }
  };

  async function attemptOnce<T>(url: string, payload: string, schema: z.ZodType<T>, signal: AbortSignal | undefined): Promise<T> {
    const deadline = AbortSignal.timeout(o.timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (o.apiKey !== undefined) headers.authorization = `Bearer ${o.apiKey}`;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, { method: 'POST', headers, body: payload, signal: signal === undefined ? deadline : AbortSignal.any([deadline, signal]) });
      text = await res.text();
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      if (deadline.aborted) throw new AppError(ErrorCode.Timeout, `${url}: no answer within ${o.timeoutMs} ms`, { retryable: true, cause: err });
      throw new Retryable(`connection failed: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`);
    }
    if (res.status >= 500 || res.status === 429) {
      const after = Number(res.headers.get('retry-after'));
      throw new Retryable(`HTTP ${res.status}: ${text.slice(0, 300)}`, Number.isFinite(after) && after > 0 ? after * 1000 : 0);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Some admin endpoints answer success in plain text (vLLM's /v1/load_lora_adapter) or with no body; the schema judges it.
      if (!res.ok) throw new AppError(ErrorCode.UpstreamError, `${url}: HTTP ${res.status} with a body that is not JSON`);
      json = text;
    }
    if (!res.ok) throw new AppError(ErrorCode.UpstreamError, `${url}: HTTP ${res.status}: ${serverMessage(json) ?? text.slice(0, 300)}`);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new AppError(ErrorCode.UpstreamError, `${url}: unexpected reply: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  }
}

/** The message of an OpenAI-style `{error: {message}}` or our problem body. */
function serverMessage(json: unknown): string | undefined {
  const e = (json as { error?: unknown; detail?: unknown } | null)?.error;
  if (typeof e === 'string') return e;
  const m = (e as { message?: unknown } | undefined)?.message;
  if (typeof m === 'string') return m;
  const d = (json as { detail?: unknown } | null)?.detail;
  return typeof d === 'string' ? d : undefined;
}
