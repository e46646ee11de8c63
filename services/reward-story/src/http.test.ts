import { createApp, createLogger, createMetrics } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { createFormatChecker } from './core/format/format-checker.ts';
import { bowEmbedder } from './core/testing/bow-embedder.ts';
import { REPLIES, SETTINGS, STORY, STORY_VOCABULARY, storyItem } from './core/testing/story-fixture.ts';
import { addRoutes } from './http.ts';
import { StoryScoreResponse } from './schemas.ts';
import { createScoreService } from './score-service.ts';

function app() {
  const logger = createLogger({ service: 't', level: 'silent' });
  const metrics = createMetrics('t');
  const a = createApp({ service: 'reward-story', version: 't', description: 't', logger, metrics, maxBodyBytes: 1024 * 1024 });
  const svc = createScoreService({
    embedder: Promise.resolve(bowEmbedder(STORY_VOCABULARY)),
    formats: createFormatChecker(),
    settings: SETTINGS,
    metrics,
    logger,
  });
  addRoutes(a, svc);
  return { a, metrics };
}

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('POST /v1/score', () => {
  it('scores in order with per-item errors, in the documented response shape, and counts the errors', async () => {
    const { a, metrics } = app();
    const res = await a.request(
      '/v1/score',
      post({ items: [storyItem(REPLIES.good), storyItem(REPLIES.good, { params: { colour: 'red' } }), storyItem(REPLIES.offTopic)] }),
    );
    expect(res.status).toBe(200);
    const body = StoryScoreResponse.parse(await res.json());
    expect(body.results.map((r) => ('error' in r ? r.error.code : 'score'))).toEqual(['score', 'invalid_params', 'score']);
    expect(await metrics.registry.getSingleMetricAsString('item_errors_total')).toMatch(/item_errors_total\{code="invalid_params"[^}]*\} 1/);
  });

  it('answers 400 problem+json naming the field for a malformed request', async () => {
    const { a } = app();
    for (const [body, field] of [
      [{ items: [] }, 'items'],
      [{ items: [{ data_source: 'story', context: STORY }] }, 'items[0].solution_str'],
      [{ items: [storyItem('x', { context: { ...STORY, user_input: 3 as unknown as string } })] }, 'items[0].context.user_input'],
      [{ items: [storyItem('x', { context: { ...STORY, output_format: { type: 'xml' } as never } })] }, 'items[0].context.output_format'],
      [{ items: [storyItem('x', { signals: { logprobs_with_context: [0.5], logprobs_without_context: [-1] } })] }, 'items[0].signals.logprobs_with_context[0]'],
    ] as const) {
      const res = await a.request('/v1/score', post(body));
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await res.json()) as { detail: string; error: { code: string } };
      expect(problem.error.code).toBe('validation_failed');
      expect(problem.detail).toContain(field);
    }
  });
});
