import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { OpenRlhfRequest, openRlhfItems, toOpenRlhfResponse } from './openrlhf.ts';

const parse = (body: unknown) => OpenRlhfRequest.parse(body);
const issuePaths = (body: unknown) => {
  const r = OpenRlhfRequest.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
};

describe('OpenRLHF request -> score items', () => {
  it('takes the data source from the URL and the response after the prompt', () => {
    const body = parse({ query: ['Q: 9+9?\nA: #### 18</s>'], prompts: ['Q: 9+9?\nA: '], labels: ['18'] });
    expect(openRlhfItems(body, 'openai/gsm8k')).toEqual([{ data_source: 'openai/gsm8k', solution_str: '#### 18', ground_truth: '18' }]);
  });

  it('a label object (or its JSON text) picks its own scorer and options, over the URL', () => {
    const body = parse({
      query: ['p1 the answer is 18', 'p2 \\boxed{2}', 'p3 #### 7'],
      prompts: ['p1 ', 'p2 ', 'p3 '],
      labels: [
        { data_source: 'openai/gsm8k', ground_truth: '18', params: { method: 'flexible' } },
        JSON.stringify({ data_source: 'lighteval/MATH', reward_model: { ground_truth: '2' }, extra_info: { index: 4 } }),
        '{"inputs": [], "outputs": []}', // JSON without data_source: a plain ground truth
      ],
    });
    expect(openRlhfItems(body, 'fallback')).toEqual([
      { data_source: 'openai/gsm8k', solution_str: 'the answer is 18', ground_truth: '18', params: { method: 'flexible' } },
      { data_source: 'lighteval/MATH', solution_str: '\\boxed{2}', ground_truth: '2', extra_info: { index: 4 } },
      { data_source: 'fallback', solution_str: '#### 7', ground_truth: '{"inputs": [], "outputs": []}' },
    ]);
  });

  it('absent prompts and labels: the whole query, null ground truths', () => {
    expect(openRlhfItems(parse({ query: ['#### 3'] }), 'openai/gsm8k')).toEqual([{ data_source: 'openai/gsm8k', solution_str: '#### 3', ground_truth: null }]);
  });

  it('a sample with no data source anywhere is a 400 naming its label', () => {
    try {
      openRlhfItems(parse({ query: ['a', 'b'], labels: [{ data_source: 'x' }, 'y'] }), undefined);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
      expect((err as AppError).message).toMatch(/^labels\[1\]: no data_source/);
    }
  });

  it('names the failing field of a malformed body', () => {
    expect(issuePaths({ query: 'not a list' })).toEqual(['query']);
    expect(issuePaths({ query: ['a', 7] })).toEqual(['query.1']);
    expect(issuePaths({ query: ['a'], prompts: ['a', 'b'] })).toEqual(['prompts']);
    expect(issuePaths({ query: ['a'], labels: [{ data_source: 'x', params: { timeout_ms: -1 } }] })).toEqual(['labels.0.params.timeout_ms']);
    expect(issuePaths({ query: ['a'], labels: [{ data_source: '' }] })).toEqual(['labels.0.data_source']);
  });
});

describe('results -> OpenRLHF response', () => {
  it('every sample gets a number; errors are 0 with the flag and their reason', () => {
    const res = toOpenRlhfResponse([{ score: 1, extra: { acc: true } }, { error: { code: 'timeout', message: 'too slow' } }, { score: -0.5 }]);
    expect(res).toEqual({
      rewards: [1, 0, -0.5],
      scores: [1, 0, -0.5],
      extra_logs: { reward_error: [0, 1, 0] },
      errors: [null, { code: 'timeout', message: 'too slow' }, null],
    });
  });
  it('an empty batch is a valid empty response with the same keys', () => {
    expect(toOpenRlhfResponse([])).toEqual({ rewards: [], scores: [], extra_logs: { reward_error: [] }, errors: [] });
  });
});
