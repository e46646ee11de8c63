import { describe, expect, it } from 'vitest';
import { createApp } from '../http/app.ts';
import { createLogger } from '../logger.ts';
import { createMetrics } from '../metrics.ts';
import type { ScoreItem } from '../schemas/score.ts';
import { addProtocolRoutes, REWARD_ERROR_HEADER } from './protocol-routes.ts';
import type { BatchScorer } from './scorer.ts';

/** A real, tiny scorer: 1 when the response ends with the ground truth; data source "broken" is an item error. */
const endsWithScorer =
  (seen: ScoreItem[][]): BatchScorer =>
  async (items) => {
    seen.push(items);
    return items.map((i) =>
      i.data_source === 'broken'
        ? { error: { code: 'scorer_failed', message: 'boom' } }
        : { score: typeof i.ground_truth === 'string' && i.solution_str.endsWith(i.ground_truth) ? 1 : 0, extra: { ds: i.data_source } },
    );
  };

function app() {
  const seen: ScoreItem[][] = [];
  const a = createApp({
    service: 't',
    version: 't',
    description: 't',
    logger: createLogger({ service: 't', level: 'silent' }),
    metrics: createMetrics('t'),
    maxBodyBytes: 64 * 1024,
  });
  addProtocolRoutes(a, endsWithScorer(seen));
  return { a, seen };
}
const post = (body: unknown) => ({
  method: 'POST',
  body: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('OpenRLHF routes', () => {
  it('take the data source from the rest of the path, slashes included, escaped or not', async () => {
    const { a, seen } = app();
    for (const path of ['/openrlhf/openai/gsm8k', '/openrlhf/openai%2Fgsm8k']) {
      const res = await a.request(path, post({ query: ['P: #### 18<|im_end|>', 'P: #### 17'], prompts: ['P: ', 'P: '], labels: ['18', '18'] }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ rewards: [1, 0], scores: [1, 0], extra_logs: { reward_error: [0, 0] }, errors: [null, null] });
    }
    expect(seen.flat().map((i) => i.data_source)).toEqual(Array(4).fill('openai/gsm8k'));
  });

  it('a failing sample is reward 0 with the error flag; the others keep their rewards', async () => {
    const { a } = app();
    const res = await a.request(
      '/openrlhf',
      post({ query: ['a', 'b'], prompts: ['', ''], labels: [{ data_source: 'broken' }, { data_source: 'x', ground_truth: 'b' }] }),
    );
    expect(await res.json()).toEqual({
      rewards: [0, 1],
      scores: [0, 1],
      extra_logs: { reward_error: [1, 0] },
      errors: [{ code: 'scorer_failed', message: 'boom' }, null],
    });
  });

  it('an empty batch is answered without calling the scorer', async () => {
    const { a, seen } = app();
    const res = await a.request('/openrlhf/x', post({ query: [], prompts: [], labels: [] }));
    expect(await res.json()).toEqual({ rewards: [], scores: [], extra_logs: { reward_error: [] }, errors: [] });
    expect(seen).toEqual([]);
  });

  it('malformed bodies are 400 problem+json naming the field, never a 500', async () => {
    const { a } = app();
    for (const [path, body, field] of [
      ['/openrlhf/x', { query: ['a'], labels: ['a', 'b'] }, 'labels'],
      ['/openrlhf/x', { query: [1] }, 'query[0]'],
      ['/openrlhf/x', { prompts: [] }, 'query'],
      ['/openrlhf/x', 'not json', 'body'],
      ['/openrlhf', { query: ['a'], labels: ['18'] }, 'labels[0]'],
      ['/openrlhf/x', { query: ['a'], labels: [{ data_source: 'y', extra_info: 'no' }] }, 'labels[0].extra_info'],
    ] as const) {
      const res = await a.request(path, post(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(((await res.json()) as { detail: string }).detail).toContain(field);
    }
  });
});

describe('slime routes', () => {
  it('answer a bare number by default and the detail object with ?detail=true', async () => {
    const { a } = app();
    const body = { prompt: [{ role: 'user', content: 'q' }], response: '#### 18</s>', label: '18' };
    const bare = await a.request('/slime/openai/gsm8k', post(body));
    expect(await bare.text()).toBe('1');
    const detail = await a.request('/slime/openai/gsm8k?detail=true', post(body));
    expect(await detail.json()).toEqual({ score: 1, error: null, extra: { ds: 'openai/gsm8k' } });
  });

  it('an error is a bare 0 with its code in a header, or the error in the detail', async () => {
    const { a } = app();
    const bare = await a.request('/slime/broken', post({ prompt: 'q', response: 'r', label: null }));
    expect(await bare.text()).toBe('0');
    expect(bare.headers.get(REWARD_ERROR_HEADER)).toBe('scorer_failed');
    const detail = await a.request('/slime?detail=1', post({ prompt: 'q', response: 'r', label: { data_source: 'broken' } }));
    expect(await detail.json()).toEqual({ score: 0, error: { code: 'scorer_failed', message: 'boom' }, extra: {} });
  });

  it('a list of samples (a --group-rm group) is one scorer call answered by a list in order', async () => {
    const { a, seen } = app();
    const group = [
      { prompt: 'q', response: '#### 18</s>', label: '18' },
      { prompt: 'q', response: '#### 17', label: '18' },
      { prompt: 'q', response: 'r', label: { data_source: 'broken' } },
    ];
    const bare = await a.request('/slime/openai/gsm8k', post(group));
    expect(await bare.json()).toEqual([1, 0, 0]);
    expect(bare.headers.get(REWARD_ERROR_HEADER)).toBeNull();
    expect(seen.map((items) => items.length)).toEqual([3]);
    const detail = await a.request('/slime/openai/gsm8k?detail=true', post(group));
    expect(await detail.json()).toEqual([
      { score: 1, error: null, extra: { ds: 'openai/gsm8k' } },
      { score: 0, error: null, extra: { ds: 'openai/gsm8k' } },
      { score: 0, error: { code: 'scorer_failed', message: 'boom' }, extra: {} },
    ]);
    const empty = await a.request('/slime/openai/gsm8k', post([]));
    expect(await empty.json()).toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it('a refused sample of a list is a 400 naming its index', async () => {
    const { a } = app();
    for (const [path, body, field] of [
      [
        '/slime',
        [
          { prompt: 'q', response: 'r', label: { data_source: 'x' } },
          { prompt: 'q', response: 'r', label: 'x' },
        ],
        '[1].label',
      ],
      ['/slime/x', [{ prompt: 'q', response: 'r' }, { prompt: 'q' }], '[1].response'],
    ] as const) {
      const res = await a.request(path, post(body));
      expect(res.status, field).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(field);
    }
  });

  it('malformed bodies and queries are 400 naming the field', async () => {
    const { a } = app();
    for (const [path, body, field] of [
      ['/slime/x', { prompt: 'q' }, 'response'],
      ['/slime/x', { prompt: 'q', response: 'r', metadata: { params: { timeout_ms: 'soon' } } }, 'metadata.params.timeout_ms'],
      ['/slime', { prompt: 'q', response: 'r', label: 'x' }, 'label'],
      ['/slime/x?detail=yes', { prompt: 'q', response: 'r' }, 'detail'],
    ] as const) {
      const res = await a.request(path, post(body));
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(field);
    }
  });
});
