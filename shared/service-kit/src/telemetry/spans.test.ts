import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectTraceHeaders } from './propagation.ts';
import { dataSourceAttributes, withNatsClientSpan, withServerSpan, withSpan } from './spans.ts';

// The SDK with a processor that keeps every ended span (its own AsyncLocalStorage context manager and W3C propagator).
type Ended = {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  status: number;
};
const ended: Ended[] = [];
const sdk = new NodeSDK({
  serviceName: 'spans-test',
  spanProcessors: [
    {
      onStart: () => {},
      onEnd: (s) =>
        void ended.push({
          name: s.name,
          kind: s.kind,
          traceId: s.spanContext().traceId,
          spanId: s.spanContext().spanId,
          parentSpanId: s.parentSpanContext?.spanId,
          attributes: { ...s.attributes },
          status: s.status.code,
        }),
      forceFlush: async () => {},
      shutdown: async () => {},
    },
  ],
});
beforeAll(() => sdk.start());
afterAll(() => sdk.shutdown());

const byName = (name: string) => ended.find((s) => s.name === name)!;

describe('span helpers', () => {
  it('nest through async work; a root span starts a new trace inside another', async () => {
    await withSpan('outer', {}, async () => {
      await new Promise((r) => setImmediate(r));
      await withSpan('inner', { attributes: { a: 1 } }, async () => {});
      await withSpan('fresh', { root: true }, async () => {});
    });
    const [outer, inner, fresh] = ['outer', 'inner', 'fresh'].map(byName);
    expect(inner!.parentSpanId).toBe(outer!.spanId);
    expect(inner!.traceId).toBe(outer!.traceId);
    expect(inner!.attributes).toEqual({ a: 1 });
    expect(fresh!.parentSpanId).toBeUndefined();
    expect(fresh!.traceId).not.toBe(outer!.traceId);
  });

  it('records a rejection on the span and rethrows it', async () => {
    await expect(withSpan('failing', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(byName('failing').status).toBe(SpanStatusCode.ERROR);
  });

  it('a NATS client span is what the request headers carry; the server span continues it', async () => {
    let sent: string | undefined;
    await withNatsClientSpan('reward.rules.score', dataSourceAttributes([{ data_source: 'b' }, { data_source: 'a' }, { data_source: 'b' }]), async () => {
      const h = natsHeaders();
      injectTraceHeaders(h);
      sent = h.get('traceparent');
    });
    const client = byName('reward.rules.score');
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'reward.rules.score',
      'rl.items': 3,
      'rl.data_sources': ['a', 'b'],
    });
    expect(sent).toBe(`00-${client.traceId}-${client.spanId}-01`);
    // The receiving side (no span active): its server span is the client span's child.
    await withServerSpan('reward.score', sent, { 'rl.edge': 'nats' }, async () => {
      expect(trace.getActiveSpan()?.spanContext().traceId).toBe(client.traceId);
    });
    const server = byName('reward.score');
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.parentSpanId).toBe(client.spanId);
  });
});
