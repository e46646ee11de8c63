import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { AppError, ScoreResponse, requestJson } from '@rl/service-kit';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../openapi/types/reward-rules.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const SUBJECT = 'reward.rules.score';
let nats: NatsServer;
let a: ServiceProcess;
let b: ServiceProcess;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNatsServer();
  [a, b] = await Promise.all([startService('reward-rules', { NATS_URL: nats.url }), startService('reward-rules', { NATS_URL: nats.url })]);
  nc = await connectTestClient(nats.url);
});
afterAll(async () => {
  await nc?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await nats?.stop();
});

const postScore = (base: string, body: unknown) =>
  fetch(`${base}/v1/score`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
const natsScore = (body: unknown, timeoutMs = 30_000) => requestJson(nc, SUBJECT, body, { timeoutMs, response: ScoreResponse });

const MIXED = {
  items: [
    { data_source: 'openai/gsm8k', solution_str: 'She pays 9 + 9 = 18 dollars. #### 18', ground_truth: '18' },
    { data_source: 'openai/gsm8k', solution_str: 'the answer is 18', ground_truth: '18', params: { method: 'flexible' } },
    { data_source: 'lighteval/MATH', solution_str: 'so \\boxed{\\frac{1}{2}}', ground_truth: '\\frac12' },
    { data_source: 'math_dapo', solution_str: 'Answer: 42', ground_truth: '42' },
    { data_source: 'searchR1_nq', solution_str: '<answer> The Eiffel Tower </answer>', ground_truth: { target: ['eiffel tower'] } },
    { data_source: 'no-such-source', solution_str: 'x', ground_truth: 'y' },
    { data_source: 'apps', solution_str: '```python\nprint(1)\n```', ground_truth: '{"inputs": [""], "outputs": ["1"]}' },
  ],
};

describe('reward-rules over HTTP and NATS (real nats-server, two service processes)', () => {
  it('gives identical results over HTTP and NATS, in request order, with per-item errors', async () => {
    const http = (await (await postScore(a.baseUrl, MIXED)).json()) as ScoreResponse;
    const bus = await natsScore(MIXED);
    expect(bus).toEqual(http);
    expect(http.results.slice(0, 5).map((r) => ('score' in r ? r.score : null))).toEqual([1, 1, 1, 1, 1]);
    expect(http.results[5]).toMatchObject({ error: { code: 'unknown_data_source' } });
    // Code data sources are forwarded to reward.sandbox.score; nobody serves it in this test.
    expect(http.results[6]).toMatchObject({ error: { code: 'sandbox_unavailable' } });
  });

  it('works through a client generated from the checked-in OpenAPI document', async () => {
    const client = createClient<paths>({ baseUrl: b.baseUrl });
    const { data, error, response } = await client.POST('/v1/score', { body: { items: [MIXED.items[0]!, MIXED.items[4]!] } });
    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    expect(data?.results).toEqual([
      { score: 1, extra: { acc: true, pred: '18' } },
      { score: 1, extra: { acc: true, pred: 'The Eiffel Tower' } },
    ]);
    const bad = await client.POST('/v1/score', { body: { items: [] } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.code).toBe('validation_failed');
    const sources = await client.GET('/v1/data-sources');
    expect(sources.data?.data_sources.map((d) => d.data_source)).toContain('openai/gsm8k');
  });

  it('forwards code data sources over NATS with the caller’s request id and trace context', async () => {
    // A stand-in for reward-sandbox (not built yet) answering on its subject.
    const seen: Array<{ requestId: string; traceparent: string; items: unknown[] }> = [];
    const sub = nc.subscribe('reward.sandbox.score', {
      callback: (_err, msg) => {
        const body = JSON.parse(new TextDecoder().decode(msg.data)) as { items: unknown[] };
        seen.push({ requestId: msg.headers?.get('X-Request-Id') ?? '', traceparent: msg.headers?.get('traceparent') ?? '', items: body.items });
        msg.respond(JSON.stringify({ results: body.items.map(() => ({ score: 0.75, extra: { pass_rate: 0.75 } })) }));
      },
    });
    await nc.flush();
    try {
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const res = await fetch(`${a.baseUrl}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent, 'x-request-id': 'req-42' },
        body: JSON.stringify({ items: [MIXED.items[0], MIXED.items[6]] }),
      });
      expect(((await res.json()) as ScoreResponse).results).toEqual([
        { score: 1, extra: { acc: true, pred: '18' } },
        { score: 0.75, extra: { pass_rate: 0.75 } },
      ]);
      expect(seen).toEqual([{ requestId: 'req-42', traceparent, items: [MIXED.items[6]] }]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('spreads requests over both instances of the queue group', async () => {
    await Promise.all(Array.from({ length: 40 }, () => natsScore({ items: MIXED.items.slice(0, 1) })));
    const stats = [];
    for await (const s of await new Svcm(nc).client({ strategy: 'count', maxMessages: 2, maxWait: 5000 }).stats('reward-rules')) stats.push(s);
    expect(stats).toHaveLength(2);
    for (const s of stats) expect(s.endpoints?.[0]?.num_requests ?? 0).toBeGreaterThan(0);
  });

  it('chunks a batch larger than max_payload both ways and returns it whole and in order', async () => {
    const maxPayload = nc.info?.max_payload ?? 0;
    // math_dapo echoes the normalised answer as `pred`, so the reply is as large as the request.
    const items = Array.from({ length: 4000 }, (_, i) => ({
      data_source: 'math_dapo',
      solution_str: `Answer: ${String(i).padStart(6, '0')}${'x'.repeat(280)}`,
      ground_truth: String(i),
    }));
    expect(JSON.stringify({ items }).length).toBeGreaterThan(maxPayload);
    const reply = await natsScore({ items });
    expect(JSON.stringify(reply).length).toBeGreaterThan(maxPayload);
    expect(reply.results).toHaveLength(items.length);
    reply.results.forEach((r, i) => expect(r).toMatchObject({ extra: { pred: expect.stringMatching(new RegExp(`^${String(i).padStart(6, '0')}`)) } }));
  });

  it('answers no_responders (not a timeout) when no instance serves the subject', async () => {
    const err = await requestJson(nc, 'reward.nobody.score', MIXED, { timeoutMs: 60_000, response: ScoreResponse }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('no_responders');
  });

  it('times out only the pathological item and scores the rest of the batch', async () => {
    // verl's Minerva normalisation runs re.sub(r"(\\text\{)(.*?)(\})", ...) over the whole ground
    // truth; with thousands of unclosed \text{ it backtracks quadratically (seconds here, minutes
    // at a few MB), exactly the single call that froze verl users' training.
    const evil = { data_source: 'math_dapo', solution_str: 'Answer: 1', ground_truth: '\\text{'.repeat(60_000), params: { timeout_ms: 300 } };
    const items = [MIXED.items[0], evil, MIXED.items[4]];
    const bus = await natsScore({ items });
    expect(bus.results[0]).toMatchObject({ score: 1 });
    expect(bus.results[1]).toEqual({ error: { code: 'timeout', message: 'scoring exceeded its 300 ms budget' } });
    expect(bus.results[2]).toMatchObject({ score: 1 });
    // The replaced worker serves the next request normally.
    expect((await natsScore({ items: [MIXED.items[0]] })).results[0]).toMatchObject({ score: 1 });
  });

  it('rejects bad input with a 4xx naming the problem and keeps serving', async () => {
    const raw = (body: string, type = 'application/json') =>
      fetch(`${a.baseUrl}/v1/score`, { method: 'POST', headers: { 'content-type': type }, body, signal: AbortSignal.timeout(30_000) });
    const malformed = await raw('{"items": [');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toContain('application/problem+json');

    const nan = await raw('{"items":[{"data_source":"openai/gsm8k","solution_str":"1","ground_truth":NaN}]}');
    expect(nan.status).toBe(400);

    const wrongType = await postScore(a.baseUrl, { items: [{ data_source: 'openai/gsm8k', solution_str: 42, ground_truth: '1' }] });
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as { detail: string }).detail).toContain('items[0].solution_str');

    const missing = await postScore(a.baseUrl, { items: [{ data_source: 'openai/gsm8k', ground_truth: '1' }] });
    expect(((await missing.json()) as { detail: string }).detail).toContain('items[0].solution_str');

    const hugeString = await postScore(a.baseUrl, { items: [{ data_source: 'openai/gsm8k', solution_str: 'x'.repeat(1024 * 1024), ground_truth: '1' }] });
    expect(hugeString.status).toBe(400);
    expect(((await hugeString.json()) as { detail: string }).detail).toContain('items[0].solution_str');

    const tenMegabytes = await postScore(a.baseUrl, {
      items: [{ data_source: 'openai/gsm8k', solution_str: 'x'.repeat(10 * 1024 * 1024), ground_truth: '1' }],
    });
    expect(tenMegabytes.status).toBe(400);
    expect(((await tenMegabytes.json()) as { detail: string }).detail).toContain('items[0].solution_str');

    const tooBig = await raw(`{"items":[{"data_source":"x","solution_str":"${'y'.repeat(17 * 1024 * 1024)}","ground_truth":"1"}]}`);
    expect(tooBig.status).toBe(413);

    const badParams = await postScore(a.baseUrl, {
      items: [{ data_source: 'openai/gsm8k', solution_str: '#### 1', ground_truth: '1', params: { method: 'fuzzy' } }],
    });
    expect(badParams.status).toBe(200);
    expect(((await badParams.json()) as ScoreResponse).results[0]).toMatchObject({
      error: { code: 'invalid_params', message: expect.stringContaining('method') },
    });

    const natsBad = await natsScore({ items: [{ data_source: 'openai/gsm8k' }] }).catch((e: unknown) => e);
    expect((natsBad as AppError).code).toBe('validation_failed');
    expect((natsBad as AppError).message).toContain('items[0].solution_str');

    const stillOk = (await (await postScore(a.baseUrl, MIXED)).json()) as ScoreResponse;
    expect(stillOk.results[0]).toMatchObject({ score: 1 });
  });
});
