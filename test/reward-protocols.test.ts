// OpenRLHF's and slime's reward protocols against a real reward-rules process
// (and a real nats-server, so code data sources are forwarded and, with no
// sandbox running, fail as they would in a deployment without one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

let nats: NatsServer;
let rules: ServiceProcess;

beforeAll(async () => {
  nats = await startNatsServer();
  rules = await startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' });
});
afterAll(async () => {
  await rules?.stop();
  await nats?.stop();
});

const post = (path: string, body: unknown) =>
  fetch(`${rules.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });

const CHAT = (q: string) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;

describe('OpenRLHF remote reward on reward-rules', () => {
  it('scores gsm8k by URL and MATH by label object, with verl’s results', async () => {
    const prompts = [CHAT('Janet pays 9 + 9?'), CHAT('Janet pays 9 + 9?'), CHAT('Half of one?')];
    const res = await post('/openrlhf/openai/gsm8k', {
      query: [
        `${prompts[0]}9 + 9 = 18. #### 18<|im_end|>`,
        `${prompts[1]}I think 17. #### 17<|im_end|><|endoftext|>`,
        `${prompts[2]}It is \\boxed{\\frac{1}{2}}<|im_end|>`,
      ],
      prompts,
      labels: ['18', '18', { data_source: 'lighteval/MATH', ground_truth: '\\frac12' }],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ rewards: [1, 0, 1], scores: [1, 0, 1], extra_logs: { reward_error: [0, 0, 0] }, errors: [null, null, null] });
  });

  it('a sample whose scoring fails is reward 0 with the error flag, the same keys for every sample', async () => {
    const res = await post('/openrlhf/math_dapo', {
      query: ['p Answer: 42', 'p ```python\nprint(1)\n```', 'p x'],
      prompts: ['p ', 'p ', 'p '],
      labels: ['42', { data_source: 'apps', ground_truth: '{"inputs": [""], "outputs": ["1"]}' }, { data_source: 'no-such-source', ground_truth: 'y' }],
    });
    const body = (await res.json()) as { rewards: number[]; extra_logs: Record<string, number[]>; errors: Array<{ code: string } | null> };
    expect(body.rewards).toEqual([1, 0, 0]);
    expect(body.extra_logs).toEqual({ reward_error: [0, 1, 1] });
    expect(body.errors.map((e) => e?.code ?? null)).toEqual([null, 'sandbox_unavailable', 'unknown_data_source']);
  });

  it('a malformed body is a 400 problem+json naming the field', async () => {
    const res = await post('/openrlhf/openai/gsm8k', { query: ['a', 'b'], prompts: ['a'], labels: ['1', '2'] });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as { detail: string }).detail).toMatch(/prompts: has 1 entries but query has 2/);
  });
});

describe('slime remote_rm on reward-rules', () => {
  it('answers a bare number, and the detail object with ?detail=true', async () => {
    const sample = { prompt: [{ role: 'user', content: 'Janet pays 9 + 9?' }], response: 'She pays 18. #### 18', label: '18' };
    const bare = await post('/slime/openai/gsm8k', sample);
    expect(await bare.json()).toBe(1);
    const wrong = await post('/slime/openai/gsm8k', { ...sample, response: 'the answer is 18' });
    expect(await wrong.json()).toBe(0);
    const detail = await post('/slime/openai/gsm8k?detail=true', {
      ...sample,
      response: 'the answer is 18',
      label: { data_source: 'openai/gsm8k', ground_truth: '18', params: { method: 'flexible' } },
    });
    expect(await detail.json()).toEqual({ score: 1, error: null, extra: { acc: true, pred: '18' } });
  });

  it('a scoring error is 0 with its code in the header (bare) or in the detail', async () => {
    const bare = await post('/slime/no-such-source', { prompt: 'q', response: 'r', label: 'x' });
    expect(await bare.json()).toBe(0);
    expect(bare.headers.get('x-reward-error')).toBe('unknown_data_source');
    const detail = await post('/slime?detail=true', { prompt: 'q', response: 'r', label: null, metadata: { data_source: 'no-such-source' } });
    expect(await detail.json()).toMatchObject({ score: 0, error: { code: 'unknown_data_source' } });
  });

  it('a --group-rm group posted as a list is answered by a list in order', async () => {
    const group = [
      { prompt: 'q', response: 'She pays 18. #### 18<|im_end|>', label: '18' },
      { prompt: 'q', response: 'the answer is 18', label: '18' },
      { prompt: 'q', response: 'r', label: { data_source: 'no-such-source', ground_truth: 'x' } },
    ];
    expect(await (await post('/slime/openai/gsm8k', group)).json()).toEqual([1, 0, 0]);
    const detail = (await (await post('/slime/openai/gsm8k?detail=true', group)).json()) as Array<{ score: number; error: { code: string } | null }>;
    expect(detail.map((d) => [d.score, d.error?.code ?? null])).toEqual([
      [1, null],
      [0, null],
      [0, 'unknown_data_source'],
    ]);
  });

  it('a malformed body is a 400 naming the field', async () => {
    const res = await post('/slime/openai/gsm8k', { prompt: 'q', response: ['not', 'text'], label: '1' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/response/);
  });
});
