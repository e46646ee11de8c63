import type { NatsConnection } from '@nats-io/transport-node';
import { ScoreResponse, requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, waitForLine, type NatsServer, type ServiceProcess } from './support/processes.ts';

// reward-sandbox with telemetry on and spans printed by OpenTelemetry's console exporter:
// a scoring call must continue the caller's trace, over HTTP and over NATS alike.
let nats: NatsServer;
let sandbox: ServiceProcess;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  sandbox = await startService('reward-sandbox', {
    NATS_URL: nats.url,
    OTEL_TRACES_EXPORTER: 'console',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  });
  nc = await connectTestClient(nats.url);
});
afterAll(async () => {
  await nc?.close();
  await sandbox?.stop();
  await nats?.stop();
});

const APPS = {
  data_source: 'apps',
  solution_str: '```python\nprint(int(input()) * 2)\n```',
  ground_truth: JSON.stringify({ inputs: ['21\n'], outputs: ['42\n'] }),
};

/** The console exporter prints a span as a multi-line object; its trace id and its parent's span id are lines of their own. */
async function expectSpanContinuing(traceId: string, callerSpanId: string): Promise<void> {
  await waitForLine(sandbox, new RegExp(`traceId: '${traceId}'`), 10_000);
  await waitForLine(sandbox, new RegExp(`spanId: '${callerSpanId}'`), 10_000);
  const text = sandbox.output.join('\n');
  const span = text.slice(text.indexOf(`traceId: '${traceId}'`));
  expect(span).toMatch(new RegExp(`^traceId: '${traceId}',\\s+parentSpanContext: \\{\\s+traceId: '${traceId}',\\s+spanId: '${callerSpanId}'`));
  expect(span).toMatch(/name: 'reward\.score'/);
}

describe('reward-sandbox continues the caller’s trace', () => {
  it('on POST /v1/score (traceparent header)', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await fetch(`${sandbox.baseUrl}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      body: JSON.stringify({ items: [APPS] }),
      signal: AbortSignal.timeout(60_000),
    });
    expect(((await res.json()) as ScoreResponse).results[0]).toMatchObject({ score: 1 });
    await expectSpanContinuing(traceId, 'b7ad6b7169203331');
  });

  it('on reward.sandbox.score (traceparent NATS header)', async () => {
    const traceId = '5b8aa5a2d2c872e8321cf37308d69df2';
    const reply = await requestJson(
      nc,
      'reward.sandbox.score',
      { items: [APPS] },
      { timeoutMs: 60_000, response: ScoreResponse, traceparent: `00-${traceId}-051581bf3cb55c13-01` },
    );
    expect(reply.results[0]).toMatchObject({ score: 1 });
    await expectSpanContinuing(traceId, '051581bf3cb55c13');
  });
});
