import { BoundedQueue } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpJsonClient } from './http-json.ts';

const Reply = z.object({ ok: z.boolean() });

/** A fetch that plays back `responses` in order (an Error means a connection failure). */
function scripted(responses: Array<Response | Error>) {
  const calls: Array<{ url: string; body: string; auth: string | null }> = [];
  const fetchFn = (async (url: string, init: RequestInit) => {
    calls.push({ url, body: String(init.body), auth: new Headers(init.headers).get('authorization') });
    const next = responses.shift();
    if (next === undefined) throw new Error('no more responses');
    if (next instanceof Error) throw new TypeError('fetch failed', { cause: next });
    return next;
  }) as typeof fetch;
  return { fetchFn, calls };
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers });

function client(responses: Array<Response | Error>, maxRetries = 3) {
  const { fetchFn, calls } = scripted(responses);
  const sleeps: number[] = [];
  const post = createHttpJsonClient({
    timeoutMs: 1000,
    maxRetries,
    retryBaseMs: 100,
    semaphore: new BoundedQueue({ concurrency: 2 }),
    apiKey: 'k',
    fetch: fetchFn,
    sleep: async (ms) => void sleeps.push(ms),
  });
  return { post, calls, sleeps };
}

describe('HTTP JSON client of OpenAI-compatible servers', () => {
  it('sends JSON with the bearer key and validates the reply', async () => {
    const { post, calls } = client([json(200, { ok: true })]);
    expect(await post('http://x/v1/completions', { a: 1 }, Reply)).toEqual({ ok: true });
    expect(calls).toEqual([{ url: 'http://x/v1/completions', body: '{"a":1}', auth: 'Bearer k' }]);
  });

  it('retries 5xx, 429 and connection failures with exponential backoff, honouring Retry-After', async () => {
    const { post, calls, sleeps } = client([json(503, {}), new Error('ECONNREFUSED'), json(429, {}, { 'retry-after': '2' }), json(200, { ok: true })]);
    expect(await post('http://x/a', {}, Reply)).toEqual({ ok: true });
    expect(calls).toHaveLength(4);
    expect(sleeps).toEqual([100, 200, 2000]);
  });

  it('gives up after maxRetries with a retryable `unavailable`', async () => {
    const { post, calls } = client([json(500, {}), json(502, {}), json(500, { error: 'boom' })], 2);
    await expect(post('http://x/a', {}, Reply)).rejects.toMatchObject({ code: 'unavailable', retryable: true, message: expect.stringContaining('HTTP 500') });
    expect(calls).toHaveLength(3);
  });

  it('does not retry a 4xx and reports the server’s message', async () => {
    const { post, calls } = client([json(400, { error: { message: 'prompt too long' } })]);
    await expect(post('http://x/a', {}, Reply)).rejects.toMatchObject({
      code: 'upstream_error',
      status: 502,
      message: expect.stringContaining('prompt too long'),
    });
    expect(calls).toHaveLength(1);
  });

  it('refuses a reply that does not match the schema', async () => {
    const { post } = client([json(200, { ok: 'yes' })]);
    await expect(post('http://x/a', {}, Reply)).rejects.toMatchObject({
      code: 'upstream_error',
      status: 502,
      message: expect.stringContaining('unexpected reply'),
    });
  });
});
