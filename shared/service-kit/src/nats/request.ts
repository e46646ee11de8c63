import { RequestError, TimeoutError, type NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader } from '@nats-io/services';
import type { z } from 'zod';
import { AppError, ErrorCode, fromErrorBody, isErrorCode } from '../errors.ts';
import { assembleChunks, chunkHeaders, chunkLimit, serveChunks, splitChunks } from './chunking.ts';
import { correlationHeaders, type Correlation } from './headers.ts';
import { PROGRESS_HEADER, requestOnce } from './request-once.ts';

/** Options of {@link requestJson}. `timeoutMs` is required, as in nats.js. */
export interface RequestJsonOptions<O> extends Correlation {
  /** Deadline of the whole exchange, including chunk transfers. */
  timeoutMs: number;
  /** Schema the reply must satisfy. */
  response: z.ZodType<O>;
  /** Largest reassembled reply accepted. @default 64 MiB */
  maxReplyBytes?: number;
  /**
   * Takes the responder's progress messages (JSON, each whole in one message) as they arrive, before the
   * reply; asking for them sets {@link PROGRESS_HEADER} on the request. A progress message that is not JSON
   * is dropped: the reply is the answer, progress only lets the caller start early.
   */
  onProgress?: (progress: unknown) => void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * JSON request/reply over NATS with the project's conventions: payloads over the
 * connection's `max_payload` are chunked both ways; `no_responders`, timeouts and
 * a connection lost while the reply is awaited become typed, retryable errors at
 * once; error replies come back as the same {@link AppError} the service threw;
 * and the reply is validated before it is returned.
 */
export async function requestJson<O>(nc: NatsConnection, subject: string, body: unknown, opts: RequestJsonOptions<O>): Promise<O> {
  const { timeoutMs, response, maxReplyBytes = 64 * 1024 * 1024 } = opts;
  const data = encoder.encode(JSON.stringify(body));
  const chunks = splitChunks(data, chunkLimit(nc));
  const headers = correlationHeaders(opts);
  const { onProgress } = opts;
  if (onProgress !== undefined) headers.set(PROGRESS_HEADER, '1');
  const upload = chunks.length > 1 ? serveChunks(nc, chunks, timeoutMs) : undefined;
  if (upload !== undefined) chunkHeaders(chunks.length, upload.inbox, headers);
  let reply: Awaited<ReturnType<typeof requestOnce>>;
  try {
    reply = await requestOnce(nc, subject, chunks[0]!, {
      timeoutMs,
      headers,
      ...(onProgress !== undefined && { onProgress: (msg) => deliverProgress(msg.data, onProgress) }),
    });
  } catch (err) {
    throw mapRequestError(err, subject, timeoutMs);
  } finally {
    upload?.sub.unsubscribe();
  }
  const full = await assembleChunks(nc, reply.data, reply.headers, { timeoutMs, maxBytes: maxReplyBytes }).catch((err: unknown) => {
    throw err instanceof AppError ? err : mapRequestError(err, subject, timeoutMs);
  });
  const parsed = parseReply(full, subject);
  const serviceCode = reply.headers?.get(ServiceErrorCodeHeader);
  if (serviceCode !== undefined && serviceCode !== '') {
    throw errorFromReply(parsed);
  }
  const checked = response.safeParse(parsed);
  if (!checked.success) {
    throw new AppError(ErrorCode.UpstreamError, `reply on ${subject} does not match its schema: ${checked.error.message}`);
  }
  return checked.data;
}

function deliverProgress(data: Uint8Array, onProgress: (progress: unknown) => void): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch {
    return;
  }
  onProgress(parsed);
}

/** A reply that is not JSON (a misbehaving peer, a truncated chunk) is the peer's failure, not a crash here. */
function parseReply(data: Uint8Array, subject: string): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch (err) {
    throw new AppError(ErrorCode.UpstreamError, `reply on ${subject} is not JSON`, { cause: err });
  }
}

function errorFromReply(parsed: unknown): AppError {
  const body = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (body !== undefined && isErrorCode(body.code) && typeof body.message === 'string') {
    return fromErrorBody({ code: body.code, message: body.message, details: body.details as Record<string, unknown> | undefined });
  }
  return new AppError(ErrorCode.UpstreamError, 'service replied with an unreadable error');
}

/** Maps nats.js request failures to typed, retryable {@link AppError}s. */
export function mapRequestError(err: unknown, subject: string, timeoutMs: number): AppError {
  if (err instanceof RequestError && err.isNoResponders()) {
    return new AppError(ErrorCode.NoResponders, `no service is listening on ${subject}`, { retryable: true, cause: err });
  }
  if (err instanceof TimeoutError || (err instanceof RequestError && err.cause instanceof TimeoutError)) {
    return new AppError(ErrorCode.Timeout, `no reply on ${subject} within ${timeoutMs} ms`, { retryable: true, cause: err });
  }
  if (err instanceof AppError) return err;
  return new AppError(ErrorCode.Unavailable, `request on ${subject} failed: ${String(err)}`, { retryable: true, cause: err });
}
