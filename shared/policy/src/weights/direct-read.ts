// Reading an Object Store object without a consumer. @nats-io/obj's get()
// creates a consumer, which a cluster may place on a node that has just died
// (it keeps doing so until it marks the node offline), so the read times out.
// A direct get is answered by any live replica of the bucket's stream (Object
// Store streams allow direct gets): the chunks are fetched one by one in
// stream order and checked against the object's SHA-256 digest.
import { createHash } from 'node:crypto';
import type { ObjectInfo } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode } from '@rl/service-kit/core';

/** Deadline of each chunk's direct get. */
const CHUNK_TIMEOUT_MS = 10_000;

/** The bytes of `info`'s object (its current version), read with one direct get per chunk. */
export async function readObjectDirect(nc: NatsConnection, info: ObjectInfo): Promise<Uint8Array> {
  const subject = `$O.${info.bucket}.C.${info.nuid}`;
  const api = `$JS.API.DIRECT.GET.OBJ_${info.bucket}`;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let seq = 1;
  for (let i = 0; i < info.chunks; i++) {
    const msg = await nc.request(api, JSON.stringify({ seq, next_by_subj: subject }), { timeout: CHUNK_TIMEOUT_MS });
    const next = Number(msg.headers?.get('Nats-Sequence'));
    if ((msg.headers?.code ?? 0) >= 300 || !Number.isInteger(next)) {
      throw new AppError(
        ErrorCode.Unavailable,
        `object ${info.name} of ${info.bucket}: chunk ${i + 1} of ${info.chunks} not found (${msg.headers?.description ?? 'no sequence'})`,
        {
          retryable: true,
        },
      );
    }
    chunks.push(msg.data);
    size += msg.data.length;
    seq = next + 1;
  }
  const bytes = Buffer.concat(chunks, size);
  const digest = `SHA-256=${createHash('sha256').update(bytes).digest('base64url')}`;
  if (size !== info.size || digest.replace(/=+$/, '') !== info.digest.replace(/=+$/, '')) {
    throw new AppError(
      ErrorCode.Internal,
      `object ${info.name} of ${info.bucket}: read ${size} bytes with ${digest}, expected ${info.size} with ${info.digest}`,
    );
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
