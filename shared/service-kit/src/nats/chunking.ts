import { headers as createHeaders, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { AppError, ErrorCode } from '../errors.ts';
import { inboxOf } from './connect.ts';

/** Header naming how many chunks a chunked message has (present only when > 1). */
const CHUNKS_HEADER = 'Rl-Chunks';
/** Header naming the inbox the remaining chunks are pulled from. */
const CHUNK_INBOX_HEADER = 'Rl-Chunk-Inbox';
/** Header naming which chunk a pull asks for. */
const CHUNK_INDEX_HEADER = 'Rl-Chunk-Index';
/** Bytes kept free under `max_payload` for headers and protocol framing. */
const HEADER_ALLOWANCE_BYTES = 4096;

/**
 * Largest data part of one message on this connection. Read from the server's
 * INFO (`max_payload`), never hard-coded, so a server configured with a
 * different limit just changes the chunk size.
 */
export function chunkLimit(nc: NatsConnection): number {
  const max = nc.info?.max_payload ?? 1024 * 1024;
  return Math.max(1024, max - HEADER_ALLOWANCE_BYTES);
}

/** Splits `data` into consecutive views of at most `limit` bytes (at least one, possibly empty). */
export function splitChunks(data: Uint8Array, limit: number): Uint8Array[] {
  if (data.length <= limit) return [data];
  const out: Uint8Array[] = [];
  for (let off = 0; off < data.length; off += limit) out.push(data.subarray(off, Math.min(off + limit, data.length)));
  return out;
}

/**
 * Serves chunks 1..n-1 of `chunks` on a fresh inbox until all were pulled or
 * `timeoutMs` passes. Pull-based so the peer that got chunk 0 (whichever queue
 * member it was) fetches the rest directly: no stickiness needed.
 */
export function serveChunks(nc: NatsConnection, chunks: Uint8Array[], timeoutMs: number): { inbox: string; sub: Subscription } {
  const inbox = inboxOf(nc);
  let served = 0;
  const sub = nc.subscribe(inbox, {
    timeout: timeoutMs,
    callback: (err, msg) => {
      if (err !== null) return; // the timeout ends the subscription; the puller sees its own timeout
      const index = Number(msg.headers?.get(CHUNK_INDEX_HEADER));
      const chunk = Number.isInteger(index) && index > 0 ? chunks[index] : undefined;
      msg.respond(chunk ?? new Uint8Array(0));
      if (chunk !== undefined && ++served >= chunks.length - 1) sub.unsubscribe();
    },
  });
  return { inbox, sub };
}

/** Headers announcing a chunked message. */
export function chunkHeaders(count: number, inbox: string, base?: MsgHdrs): MsgHdrs {
  const h = base ?? createHeaders();
  h.set(CHUNKS_HEADER, String(count));
  h.set(CHUNK_INBOX_HEADER, inbox);
  return h;
}

/**
 * Reassembles a possibly chunked message: returns `first` as is, or pulls the
 * remaining chunks from the sender's inbox and concatenates them, refusing to
 * grow past `maxBytes`.
 */
export async function assembleChunks(
  nc: NatsConnection,
  first: Uint8Array,
  hdrs: MsgHdrs | undefined,
  opts: { timeoutMs: number; maxBytes: number },
): Promise<Uint8Array> {
  const count = Number(hdrs?.get(CHUNKS_HEADER) ?? '1');
  const inbox = hdrs?.get(CHUNK_INBOX_HEADER) ?? '';
  if (!(count > 1)) return first;
  if (!Number.isInteger(count) || inbox === '') {
    throw new AppError(ErrorCode.BadRequest, `malformed ${CHUNKS_HEADER}/${CHUNK_INBOX_HEADER} headers`);
  }
  if ((count - 1) * first.length + 1 > opts.maxBytes) {
    throw new AppError(ErrorCode.PayloadTooLarge, `chunked payload exceeds ${opts.maxBytes} bytes`);
  }
  const parts: Uint8Array[] = [first];
  let total = first.length;
  for (let i = 1; i < count; i++) {
    const h = createHeaders();
    h.set(CHUNK_INDEX_HEADER, String(i));
    const reply = await nc.request(inbox, new Uint8Array(0), { timeout: opts.timeoutMs, headers: h });
    if (reply.data.length === 0) throw new AppError(ErrorCode.BadRequest, `chunk ${i} of ${count} missing`);
    total += reply.data.length;
    if (total > opts.maxBytes) {
      throw new AppError(ErrorCode.PayloadTooLarge, `chunked payload exceeds ${opts.maxBytes} bytes`);
    }
    parts.push(reply.data);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
