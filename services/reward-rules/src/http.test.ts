import { parseJsonText } from '@rl/service-kit';
import { createTestApp } from '@rl/service-kit/testing';
import { describe, expect, it } from 'vitest';
import { addRoutes } from './http.ts';
import type { ScoreService } from './score-service.ts';

function app(authToken?: string) {
  const seen: string[] = [];
  const svc: ScoreService = {
    // Echo-like fake: the real service validates in its workers; here we only check the HTTP shell.
    score: async (body) => {
      const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
      seen.push(text);
      const items = (parseJsonText(text) as { items: Array<{ solution_str: string }> }).items;
      return JSON.stringify({ results: items.map((i) => ({ score: i.solution_str.length, extra: {} })) });
    },
    dataSources: async () => ({ data_sources: [], prefixes: [] }),
  };
  const a = createTestApp({ service: 'reward-rules', maxBodyBytes: 1024, authToken });
  addRoutes(a, svc);
  return { a, seen };
}

const post = (body: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  body,
  headers: { 'content-type': 'application/json', ...headers },
});

describe('POST /v1/score', () => {
  it('hands the raw body to the service and returns its JSON as is', async () => {
    const { a, seen } = app();
    const body = JSON.stringify({ items: [{ data_source: 'x', solution_str: 'abc', ground_truth: 1 }] });
    const res = await a.request('/v1/score', post(body));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ results: [{ score: 3, extra: {} }] });
    expect(seen).toEqual([body]);
  });

  it('turns an AppError from the service into a problem+json reply with its status', async () => {
    const { a } = app();
    const res = await a.request('/v1/score', post('{"items":'));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });

  it('answers 413 past the body limit', async () => {
    const { a } = app();
    const res = await a.request('/v1/score', post(JSON.stringify({ items: [{ data_source: 'x', solution_str: 'y'.repeat(2000), ground_truth: 1 }] })));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('requires the bearer token when one is configured, but not on probes', async () => {
    const { a } = app('s3cret');
    const body = JSON.stringify({ items: [{ data_source: 'x', solution_str: 'a', ground_truth: 1 }] });
    expect((await a.request('/v1/score', post(body))).status).toBe(401);
    expect((await a.request('/v1/score', post(body, { authorization: 'Bearer s3cret' }))).status).toBe(200);
    expect((await a.request('/healthz')).status).toBe(200);
  });

  it('serves health, readiness, metrics and the OpenAPI document', async () => {
    const { a } = app();
    expect((await a.request('/readyz')).status).toBe(200);
    expect(await (await a.request('/metrics')).text()).toContain('http_request_duration_seconds');
    const doc = (await (await a.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/v1/score');
  });
});
