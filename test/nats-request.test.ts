// requestJson against a real nats-server and peers that answer badly: a reply
// that is not JSON, or an error header over an unreadable body, is the peer's
// failure (upstream_error, 502), never an exception that escapes as a crash.
// And progress: a kit service's messages ahead of its reply reach a caller that
// asks for them, in order, and only that caller.
import type { NatsConnection } from '@nats-io/transport-node';
import { headers } from '@nats-io/transport-node';
import { AppError, createLogger, createMetrics, ErrorCode, parsedEndpoint, requestJson, startNatsService, type NatsService } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, type NatsServer } from './support/processes.ts';

let server: NatsServer;
let nc: NatsConnection;
let service: NatsService;
/** Whether the last request to `progress.echo` was handed a progress function. */
let offered: boolean | undefined;

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
  service = await startNatsService({
    nc,
    name: 'progress',
    version: '0.0.0',
    description: 'progress test',
    endpoints: [
      parsedEndpoint({
        name: 'echo',
        subject: 'progress.echo',
        request: z.object({ n: z.number() }),
        handle: async ({ n }, ctx) => {
          offered = ctx.progress !== undefined;
          for (let i = 0; i < n; i++) ctx.progress?.({ i });
          ctx.progress?.({ pad: 'x'.repeat(2 * 1024 * 1024) }); // over max_payload: not sent, the reply carries everything
          return { n };
        },
      }),
    ],
    logger: createLogger({ service: 'progress', level: 'silent' }),
    metrics: createMetrics('progress'),
    maxBodyBytes: 1024 * 1024,
    chunkTimeoutMs: 10_000,
  });
  await nc.flush();
});

afterAll(async () => {
  await service?.stop(1_000);
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

describe('requestJson progress', () => {
  it('hands the progress messages to onProgress in order, before the reply resolves', async () => {
    const seen: unknown[] = [];
    let atReply = -1;
    const reply = await requestJson(
      nc,
      'progress.echo',
      { n: 5 },
      {
        timeoutMs: 10_000,
        response: z.object({ n: z.number() }).transform((r) => {
          atReply = seen.length;
          return r;
        }),
        onProgress: (p) => seen.push(p),
      },
    );
    expect(reply).toEqual({ n: 5 });
    expect(offered).toBe(true);
    expect(seen).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }]);
    expect(atReply).toBe(5);
  });

  it('offers no progress to a caller that does not ask, whose reply is the first message', async () => {
    await requestJson(nc, 'progress.echo', { n: 3 }, { timeoutMs: 10_000, response: z.object({ n: z.number() }) });
    expect(offered).toBe(false);
  });

  it('still reports no_responders and keeps its deadline when asking for progress', async () => {
    const noOne = requestJson(nc, 'progress.nobody', {}, { timeoutMs: 10_000, response: z.unknown(), onProgress: () => {} });
    await expect(noOne).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    nc.subscribe('progress.silent', { callback: () => {} });
    const silent = requestJson(nc, 'progress.silent', {}, { timeoutMs: 300, response: z.unknown(), onProgress: () => {} });
    await expect(silent).rejects.toMatchObject({ code: ErrorCode.Timeout });
  });
});
