// One JSON request to an upstream model server (a judge's chat endpoint, vLLM's
// /classify). Sorts every failure into: worth another attempt (429, 5xx, a
// refused connection: RetryableUpstream, with the wait the server asked for),
// or final (`upstream_error` carrying the server's text). The caller's signal
// is the item's deadline.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { z } from 'zod';

/** A failure another attempt may cure, with the wait the server asked for. */
export class RetryableUpstream extends Error {
  override readonly name = 'RetryableUpstream';
  /** 0 for a connection that failed before any answer. */
  readonly status: number;
  readonly retryAfterMs: number;

  constructor(status: number, message: string, retryAfterMs: number) {
    super(message);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

const MAX_ERROR_TEXT = 500;
/** A model server's answer is a few KiB; a body past this is a broken or hostile server, not an answer. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The body as text, refusing (and cancelling) one longer than {@link MAX_BODY_BYTES}. */
async function readCapped(res: Response): Promise<string> {
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new AppError(ErrorCode.UpstreamError, `the answer is longer than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `Retry-After` as ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3); 0 when absent or unreadable. */
function retryAfterMs(header: string | null, nowMs: number): number {
  if (header === null || header.trim() === '') return 0;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : 0;
}

/** Where a request goes, and the clock `Retry-After` dates are read against. */
export interface JsonEndpoint {
  url: string;
  headers?: Record<string, string>;
  fetch: typeof fetch;
  now: () => number;
}

/**
 * POSTs `body` and returns the answer parsed by `schema`. Rejects with the signal's reason once it aborts, a
 * RetryableUpstream, or an `upstream_error` AppError (`shape` says what a wrong answer lacks) whose `details.raw`
 * holds the server's text.
 */
export async function postJson<S extends z.ZodType>(
  endpoint: JsonEndpoint,
  body: unknown,
  schema: S,
  shape: string,
  signal: AbortSignal,
): Promise<z.output<S>> {
  let res: Response;
  let text: string;
  try {
    res = await endpoint.fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...endpoint.headers },
      body: JSON.stringify(body),
      signal,
    });
    text = await readCapped(res);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof AppError) throw err;
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new RetryableUpstream(0, `connection failed: ${cause}`, 0);
  }
  const snippet = text.slice(0, MAX_ERROR_TEXT);
  if (res.status === 429 || res.status >= 500) {
    throw new RetryableUpstream(res.status, `HTTP ${res.status}: ${snippet}`, retryAfterMs(res.headers.get('retry-after'), endpoint.now()));
  }
  if (!res.ok) throw new AppError(ErrorCode.UpstreamError, `HTTP ${res.status}: ${snippet}`, { details: { raw: snippet } });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError(ErrorCode.UpstreamError, 'the answer is not JSON', { details: { raw: snippet } });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new AppError(ErrorCode.UpstreamError, `the answer is not ${shape}`, { details: { raw: snippet } });
  return parsed.data;
}
