// Reading a weights object with direct gets (no consumer), as the generation
// service does: the same bytes as @nats-io/obj's own read for a many-chunk
// object, and a refusal when the chunks do not match the object's digest.
import type { NatsConnection } from '@nats-io/transport-node';
import { openWeightsStore } from '@rl/policy';
import { ErrorCode } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readObjectDirect } from '@rl/policy/internal';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, type NatsServer } from './support/processes.ts';

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectTestClient(nats.url);
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

describe('readObjectDirect', () => {
  it('reads a many-chunk object as getBlob does, and refuses chunks that do not match the digest', async () => {
    const os = await openWeightsStore(nc, 'direct-read');
    // 300 KiB of a seeded pattern: three chunks of @nats-io/obj's 128 KiB.
    const bytes = Uint8Array.from({ length: 300 * 1024 }, (_, i) => (i * 2654435761) >>> 24);
    const first = await os.putBlob({ name: 'actor', metadata: { version: 'v1' } }, bytes);
    expect(first.chunks).toBe(3);
    const info = (await os.info('actor'))!;
    expect(await readObjectDirect(nc, info)).toEqual(await os.getBlob('actor'));
    expect(await readObjectDirect(nc, info)).toEqual(bytes);

    // The digest of another object: the read is refused, never handed on as weights.
    const other = await os.putBlob(
      { name: 'other' },
      bytes.map((b) => b ^ 1),
    );
    await expect(readObjectDirect(nc, { ...info, digest: other.digest })).rejects.toMatchObject({ code: ErrorCode.Internal });
    // An object whose chunks are gone (replaced since its info was read) is a retryable miss.
    await os.putBlob({ name: 'actor', metadata: { version: 'v2' } }, bytes.subarray(0, 10));
    await expect(readObjectDirect(nc, info)).rejects.toMatchObject({ code: ErrorCode.Unavailable, retryable: true });
  });
});
