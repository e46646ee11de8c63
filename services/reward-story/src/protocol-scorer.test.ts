import { createApp, createLogger, createMetrics } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { createFormatChecker } from './core/format/format-checker.ts';
import { bowEmbedder } from './core/testing/bow-embedder.ts';
import { REPLIES, SETTINGS, STORY, STORY_VOCABULARY } from './core/testing/story-fixture.ts';
import { addRoutes } from './http.ts';
import { createScoreService } from './score-service.ts';

function app() {
  const logger = createLogger({ service: 't', level: 'silent' });
  const metrics = createMetrics('t');
  const a = createApp({ service: 'reward-story', version: 't', description: 't', logger, metrics, maxBodyBytes: 1024 * 1024 });
  addRoutes(
    a,
    createScoreService({ embedder: Promise.resolve(bowEmbedder(STORY_VOCABULARY)), formats: createFormatChecker(), settings: SETTINGS, metrics, logger }),
  );
  return a;
}

describe('story rewards through the OpenRLHF edge', () => {
  it('scores a reply whose context is in the label’s extra_info, and flags an item that is not a story item', async () => {
    const res = await app().request('/openrlhf/story', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: [`P ${REPLIES.good}`, `P ${REPLIES.good}`],
        prompts: ['P ', 'P '],
        labels: [
          { data_source: 'story', ground_truth: null, extra_info: STORY },
          { data_source: 'story', ground_truth: ['not', 'a', 'string'] },
        ],
      }),
    });
    const body = (await res.json()) as { rewards: number[]; extra_logs: { reward_error: number[] }; errors: Array<{ code: string; message: string } | null> };
    expect(body.extra_logs.reward_error).toEqual([0, 1]);
    expect(body.rewards[0]).toBeGreaterThan(0);
    expect(body.rewards[1]).toBe(0);
    expect(body.errors[1]).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('ground_truth') });
  });
});
