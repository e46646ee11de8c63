// requestJson against a real nats-server and peers that answer badly: a reply
// that is not JSON, or an error header over an unreadable body, is the peer's
// failure (upstream_error, 502), never an exception that escapes as a crash.
import type { NatsConnection } from '@nats-io/transport-node';
import { headers } from '@nats-io/transport-node';
import { AppError, ErrorCode, requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, type NatsServer } from './support/processes.ts';

let server: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectTestClient(server.url);
  nc.subscribe('peer.garbage', { callback: (_err, msg) => void msg.respond('<html>not json') });
  nc.subscribe('peer.bad-error', {
    callback: (_err, msg) => {
      const h = headers();
      h.set('Nats-Service-Error-Code', '500');
      h.set('Nats-Service-Error', 'boom');
      msg.respond('{"no":"error field"}', { headers: h });
    },
  });
  nc.subscribe('peer.typed-error', {
    callback: (_err, msg) => {
      const h = headers();
      h.set('Nats-Service-Error-Code', '404');
      h.set('Nats-Service-Error', 'gone');
      msg.respond(JSON.stringify({ error: { code: 'not_found', message: 'job x' } }), { headers: h });
    },
  });
  nc.subscribe('peer.ok', { callback: (_err, msg) => void msg.respond(JSON.stringify({ n: 1 })) });
  await nc.flush();
});

afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

const ask = (subject: string) => requestJson(nc, subject, {}, { timeoutMs: 10_000, response: z.object({ n: z.number() }) });

describe('requestJson replies', () => {
  it('parses a good reply against its schema', async () => {
    await expect(ask('peer.ok')).resolves.toEqual({ n: 1 });
  });

  it('turns a reply that is not JSON into upstream_error (502)', async () => {
    const err = await ask('peer.garbage').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: ErrorCode.UpstreamError, status: 502, message: 'reply on peer.garbage is not JSON' });
  });

  it('turns an error header over an unreadable body into upstream_error', async () => {
    await expect(ask('peer.bad-error')).rejects.toMatchObject({ code: ErrorCode.UpstreamError, status: 502 });
  });

  it('rebuilds a typed error reply with the status its code has', async () => {
    await expect(ask('peer.typed-error')).rejects.toMatchObject({ code: ErrorCode.NotFound, status: 404, message: 'job x' });
  });
});
