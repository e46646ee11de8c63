import { createRng, type ScoreRequest } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REWARD_ROUTES, MODEL_SUBJECT } from './default-routes.ts';
import { createRewardClient } from './reward-client.ts';
import { rewardTarget } from './reward-target.ts';
import type { ScoreTransport } from './reward-types.ts';

describe('rewardTarget (verl reward_loop.py: an enabled reward model scores every row)', () => {
  it.each([
    ['model', 'rm', { kind: 'model', model: 'rm' }],
    [undefined, 'rm', { kind: 'model', model: 'rm' }],
    ['something', 'rm', { kind: 'model', model: 'rm' }],
    ['rule', 'rm', { kind: 'route' }],
    ['model', null, { kind: 'route' }],
    ['rule', null, { kind: 'route' }],
  ])('style %j with model %j', (style, model, expected) => {
    expect(rewardTarget(style, model)).toEqual(expected);
  });
});

describe('the reward client mixing model and rule rows', () => {
  const requests: Array<{ subject: string; items: ScoreRequest['items'] }> = [];
  const transport: ScoreTransport = async (subject, body) => {
    requests.push({ subject, items: body.items });
    return { results: body.items.map(() => ({ score: subject === MODEL_SUBJECT ? 0.5 : 1, extra: {} })) };
  };
  const client = (rewardModel: string | null, routes: Record<string, string> = {}, defaultParams = {}) =>
    createRewardClient({
      transport,
      routes: { ...DEFAULT_REWARD_ROUTES, ...routes },
      timeoutMs: 1000,
      retries: 0,
      concurrency: 1,
      maxBatchSize: 100,
      backoffMs: 1,
      maxBackoffMs: 1,
      rng: createRng(1),
      rewardModel,
      defaultParams,
    });
  const chat = [{ role: 'user', content: 'What is 2+2?' }];
  const signals = { logprobs_with_context: [-1], logprobs_without_context: [-2], entropies: [0.5] };
  const rows = [
    { data_source: 'openai/gsm8k', solution_str: '4', ground_truth: '4', style: 'rule', prompt: chat, extra_info: { index: 0 } },
    // Story signals are reward-story's: a row the model scores goes without them.
    { data_source: 'openai/gsm8k', solution_str: '4', ground_truth: '4', style: 'model', prompt: chat, extra_info: { index: 1 }, signals },
    { data_source: 'chat', solution_str: 'Hi', ground_truth: null, prompt: 'Say hi.' },
  ];

  it('sends the model rows to reward.model.score naming the model, with their conversation, and the rule rows by data_source', async () => {
    requests.length = 0;
    const { results, stats } = await client('rm').score(rows);
    expect(results.map((r) => r.score)).toEqual([1, 0.5, 0.5]);
    expect(stats.itemsBySubject).toEqual({ 'reward.rules.score': 1, [MODEL_SUBJECT]: 2 });
    const model = requests.find((r) => r.subject === MODEL_SUBJECT)!.items;
    expect(model).toEqual([
      { data_source: 'openai/gsm8k', solution_str: '4', ground_truth: '4', extra_info: { index: 1, messages: chat }, params: { model: 'rm' } },
      { data_source: 'chat', solution_str: 'Hi', ground_truth: null, extra_info: { prompt: 'Say hi.' }, params: { model: 'rm' } },
    ]);
    expect(requests.find((r) => r.subject === 'reward.rules.score')!.items).toEqual([
      { data_source: 'openai/gsm8k', solution_str: '4', ground_truth: '4', extra_info: { index: 0 } },
    ]);
  });

  it('without a reward model every row goes by its data_source, whatever its style (verl runs the rule function)', async () => {
    requests.length = 0;
    const { stats } = await client(null).score(rows);
    expect(stats.itemsBySubject).toEqual({ 'reward.rules.score': 3 });
    expect(requests[0]!.items.every((i) => i.params === undefined && !('messages' in (i.extra_info ?? {})))).toBe(true);
    expect(requests[0]!.items[1]).toHaveProperty('signals', signals);
  });

  it('a data_source routed to reward.model.score with a judge in reward.params goes to that judge', async () => {
    requests.length = 0;
    await client(null, { chat: MODEL_SUBJECT }, { chat: { judge: 'quality' } }).score(rows);
    expect(requests.find((r) => r.subject === MODEL_SUBJECT)!.items).toEqual([
      { data_source: 'chat', solution_str: 'Hi', ground_truth: null, params: { judge: 'quality' } },
    ]);
  });
});
