import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { readSse } from './cli/sse.ts';
import { addRoutes, KEEP_ALIVE } from './http.ts';
import { JobManager } from './jobs/job-manager.ts';

// Gated with Promise.withResolvers: the first job runs until released, so the second stays queued and silent.

describe('GET /v1/jobs/{id}/metrics?stream=true', () => {
  it('keeps a quiet stream alive with comments that SSE readers skip, then delivers the job’s events and ends', async () => {
    const release = Promise.withResolvers<void>();
    const jobs = new JobManager<null>({ run: () => release.promise });
    jobs.submit(null, 'first', 'a');
    jobs.submit(null, 'second', 'b');
    const app = new OpenAPIHono<AppEnv>();
    addRoutes(app, { jobs, validate: () => null, nameOf: () => 'x', renderPlots: async () => [], keepAliveMs: 5 });

    const res = await app.request('/v1/jobs/b/metrics?stream=true');
    const [forText, forEvents] = (res.body as ReadableStream<Uint8Array>).tee();
    const reader = forText.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(KEEP_ALIVE)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before a keep-alive: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
    release.resolve();
    void reader.cancel();

    const states: string[] = [];
    for await (const msg of readSse(forEvents)) {
      const e = JSON.parse(msg.data) as { type: string; state?: string };
      if (e.type === 'state' && e.state !== undefined) states.push(e.state);
    }
    expect(states.at(-1)).toBe('succeeded');
    await jobs.close();
  });
});
