import type { NatsConnection } from '@nats-io/transport-node';
import { requestJson, type AppError } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

let nats: NatsServer;
let sandbox: ServiceProcess;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  // One slot, no queue: while a slow program runs, every other one is refused.
  sandbox = await startService('reward-sandbox', { NATS_URL: nats.url, SANDBOX_CONCURRENCY: '1', SANDBOX_MAX_QUEUED: '0' });
  nc = await connectTestClient(nats.url);
});
afterAll(async () => {
  await nc?.close();
  await sandbox?.stop();
  await nats?.stop();
});

// Holds the only slot long enough for the three refusals below on a loaded host.
const slow = { language: 'python', code: 'import time\ntime.sleep(10)\nprint("done")', run_timeout: 40 };
const post = (path: string, body: unknown) =>
  fetch(`${sandbox.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });

describe('reward-sandbox under overload', () => {
  it('answers 504 with Retry-After on /run_code (what verl’s client retries), busy on /v1/score and NATS, and serves again after', async () => {
    const first = post('/run_code', slow);
    // The slow run holds the only slot for 10 s; wait until the service reports it running.
    while (!/^sandbox_running\{[^}]*\} 1$/m.test(await (await fetch(`${sandbox.baseUrl}/metrics`)).text())) {
      await new Promise((res) => setImmediate(res));
    }
    const refused = await post('/run_code', { language: 'python', code: 'print(1)' });
    expect(refused.status).toBe(504);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('busy');

    const scored = (await (
      await post('/v1/score', { items: [{ data_source: 'apps', solution_str: '```python\nprint(1)\n```', ground_truth: { inputs: [''], outputs: ['1'] } }] })
    ).json()) as {
      results: Array<{ error?: { code: string } }>;
    };
    expect(scored.results[0]?.error?.code).toBe('busy');

    const overNats = await requestJson(nc, 'sandbox.run_code', { language: 'python', code: 'print(1)' }, { timeoutMs: 30_000, response: z.unknown() }).catch(
      (e: unknown) => e,
    );
    expect((overNats as AppError).code).toBe('busy');

    expect(((await (await first).json()) as { status: string }).status).toBe('Success');
    expect(((await (await post('/run_code', { language: 'python', code: 'print(2)' })).json()) as { status: string }).status).toBe('Success');
  });
});
