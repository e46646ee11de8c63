import { headers as natsHeaders } from '@nats-io/transport-node';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../http/app.ts';
import { createLogger } from '../logger.ts';
import { createMetrics } from '../metrics.ts';
import { readCorrelation } from '../nats/headers.ts';
import type { ParsedEndpoint, RawEndpoint } from '../nats/service.ts';
import { ScoreRequest, type ScoreItem } from '../schemas/score.ts';
import type { RewardCallContext } from './call-context.ts';
import { SCORE_SPAN } from './continue-trace.ts';
import { scoreEndpoint } from './score-endpoint.ts';
import { scoreRoute } from './score-route.ts';
import { addScoreProtocolRoutes, addScoreRoute, type HttpScorer } from './score-routes.ts';

type SpanProcessor = NonNullable<NonNullable<ConstructorParameters<typeof NodeSDK>[0]>['spanProcessors']>[number];
type EndedSpan = Parameters<SpanProcessor['onEnd']>[0];

// The SDK as a service runs it, with spans collected in memory instead of exported.
const ended: EndedSpan[] = [];
const collector: SpanProcessor = { onStart: () => {}, onEnd: (s) => void ended.push(s), forceFlush: async () => {}, shutdown: async () => {} };
const sdk = new NodeSDK({ serviceName: 'edge-test', spanProcessors: [collector], metricReaders: [], logRecordProcessors: [], autoDetectResources: false });
beforeAll(() => sdk.start());
afterAll(() => sdk.shutdown());

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
const ITEM: ScoreItem = { data_source: 'd', solution_str: 'abc', ground_truth: 'c' };

/** A scorer that records its call contexts and logs one line per call (as the services' cores do). */
function recordingScorer() {
  const calls: RewardCallContext[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    service: 't',
    destination: new Writable({ write: (chunk: Buffer, _e, done) => done(void lines.push(JSON.parse(chunk.toString()))) }),
  });
  const scoreItems = async (items: ScoreItem[], ctx: RewardCallContext) => {
    calls.push(ctx);
    logger.info({ items: items.length }, 'batch received');
    return items.map((i) => ({ score: i.solution_str.length, extra: {} }));
  };
  return { calls, lines, scoreItems };
}

function app(scorer: HttpScorer) {
  const a = createApp({
    service: 't',
    version: 't',
    description: 't',
    logger: createLogger({ service: 't', level: 'silent' }),
    metrics: createMetrics('t'),
    maxBodyBytes: 64 * 1024,
  });
  addScoreRoute(a, scoreRoute({ summary: 's', description: 'd' }), scorer);
  addScoreProtocolRoutes(a, scorer);
  return a;
}
const post = (body: unknown, traceparent?: string) => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...(traceparent === undefined ? {} : { traceparent }) },
});

/** The edge's span of the last call: it must continue the caller's trace, under the caller's span. */
function expectContinued(edge: string) {
  const span = ended.at(-1);
  expect(span?.name).toBe(SCORE_SPAN);
  expect(span?.spanContext().traceId).toBe(TRACE_ID);
  expect(span?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
  expect(span?.attributes).toMatchObject({ 'rl.edge': edge, 'rl.request_id': 'req-1' });
}

describe('the reward edge continues the caller’s trace', () => {
  it('on POST /v1/score: one call context (request id, signal, traceparent), span and log lines in the caller’s trace', async () => {
    const { calls, lines, scoreItems } = recordingScorer();
    const res = await app({ scoreItems, protocols: scoreItems }).request('/v1/score', post({ items: [ITEM] }, TRACEPARENT));
    expect(await res.json()).toEqual({ results: [{ score: 3, extra: {} }] });
    expect(calls).toEqual([{ requestId: 'req-1', traceparent: TRACEPARENT, signal: expect.any(AbortSignal) }]);
    expect(lines[0]).toMatchObject({ msg: 'batch received', trace_id: TRACE_ID });
    expectContinued('http');
  });

  it('on the OpenRLHF and slime routes', async () => {
    const { calls, scoreItems } = recordingScorer();
    const a = app({ scoreItems, protocols: scoreItems });
    await a.request('/slime/d', post({ prompt: 'P', response: 'abc', label: 'c' }, TRACEPARENT));
    expectContinued('http');
    await a.request('/openrlhf/d', post({ query: ['Pabc'], prompts: ['P'], labels: ['c'] }, TRACEPARENT));
    expectContinued('http');
    expect(calls.map((c) => c.traceparent)).toEqual([TRACEPARENT, TRACEPARENT]);
  });

  it('on the NATS score endpoint, from the message headers', async () => {
    const { calls, lines, scoreItems } = recordingScorer();
    const ep = scoreEndpoint({ subject: 'reward.t.score', request: ScoreRequest, scoreItems }) as ParsedEndpoint<ScoreRequest>;
    const h = natsHeaders();
    h.set('traceparent', TRACEPARENT);
    h.set('X-Request-Id', 'req-1');
    const ctx = { ...readCorrelation(h), signal: new AbortController().signal };
    expect(await ep.handle({ items: [ITEM] }, ctx)).toEqual({ results: [{ score: 3, extra: {} }] });
    expect(calls[0]).toMatchObject({ requestId: 'req-1', traceparent: TRACEPARENT });
    expect(lines[0]).toMatchObject({ trace_id: TRACE_ID });
    expectContinued('nats');
  });

  it('for a raw core too (body as bytes on HTTP and NATS, protocol items as the same JSON body)', async () => {
    const bodies: string[] = [];
    const scoreRaw = async (body: Uint8Array | string) => {
      const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
      bodies.push(text);
      return JSON.stringify({ results: (JSON.parse(text) as { items: ScoreItem[] }).items.map(() => ({ score: 1, extra: {} })) });
    };
    const a = app({ scoreRaw });
    const res = await a.request('/v1/score', post({ items: [ITEM] }, TRACEPARENT));
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ results: [{ score: 1, extra: {} }] });
    expectContinued('http');
    expect(await (await a.request('/slime/d', post({ prompt: 'P', response: 'abc', label: 'c' }))).json()).toBe(1);
    const ep = scoreEndpoint({ subject: 'reward.t.score', scoreRaw }) as RawEndpoint;
    await ep.handleRaw(new TextEncoder().encode(JSON.stringify({ items: [ITEM] })), {
      requestId: 'req-1',
      traceparent: TRACEPARENT,
      signal: new AbortController().signal,
    });
    expectContinued('nats');
    // The slime sample's prompt travels as extra_info.prompt.
    expect(bodies.map((b) => JSON.parse(b))).toEqual([{ items: [ITEM] }, { items: [{ ...ITEM, extra_info: { prompt: 'P' } }] }, { items: [ITEM] }]);
  });

  it('starts a new trace when the caller sent none', async () => {
    const { scoreItems } = recordingScorer();
    await app({ scoreItems, protocols: scoreItems }).request('/v1/score', post({ items: [ITEM] }));
    const span = ended.at(-1);
    expect(span?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(span?.parentSpanContext).toBeUndefined();
  });
});
