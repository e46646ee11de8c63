import { describe, expect, it } from 'vitest';
import { SlimeRequest, slimeItem, toSlimeDetail, toSlimeReward } from './slime.ts';

const parse = (body: unknown) => SlimeRequest.parse(body);

describe('slime request -> score item', () => {
  it('scores the response against the label, data source from the URL', () => {
    expect(slimeItem(parse({ prompt: 'q', response: '#### 18<|im_end|>', label: '18' }), 'openai/gsm8k')).toEqual({
      data_source: 'openai/gsm8k',
      solution_str: '#### 18',
      ground_truth: '18',
      extra_info: { prompt: 'q' },
    });
  });
  it('label object over metadata over URL; metadata fills extra_info and params', () => {
    const fromLabel = slimeItem(
      parse({
        prompt: [{ role: 'user', content: 'q' }],
        response: 'r',
        label: { data_source: 'math_dapo', ground_truth: '4' },
        metadata: { data_source: 'm', extra_info: { i: 1 } },
      }),
      'u',
    );
    expect(fromLabel).toEqual({
      data_source: 'math_dapo',
      solution_str: 'r',
      ground_truth: '4',
      extra_info: { i: 1, prompt: [{ role: 'user', content: 'q' }] },
    });
    const fromMeta = slimeItem(parse({ prompt: 'q', response: 'r', label: null, metadata: { data_source: 'm', params: { method: 'flexible' } } }), 'u');
    expect(fromMeta).toEqual({ data_source: 'm', solution_str: 'r', ground_truth: null, params: { method: 'flexible' }, extra_info: { prompt: 'q' } });
  });
  it("carries slime's prompt as extra_info.prompt (text or chat) unless extra_info already has one; no prompt adds nothing", () => {
    const chat = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 9+9?' },
    ];
    expect(slimeItem(parse({ prompt: chat, response: 'r', label: '18' }), 'u').extra_info).toEqual({ prompt: chat });
    const own = parse({ prompt: 'q', response: 'r', label: { data_source: 'd', ground_truth: '4', extra_info: { prompt: 'mine', k: 1 } } });
    expect(slimeItem(own, 'u').extra_info).toEqual({ prompt: 'mine', k: 1 });
    for (const prompt of [undefined, null]) expect(slimeItem(parse({ prompt, response: 'r', label: '18' }), 'u')).not.toHaveProperty('extra_info');
  });
  it('no data source anywhere is a 400 naming the label', () => {
    expect(() => slimeItem(parse({ prompt: 'q', response: 'r', label: 'x' }), undefined)).toThrow(/^label: no data_source/);
  });
  it('names the failing field of a malformed body', () => {
    const r = SlimeRequest.safeParse({ prompt: 'q', response: 5 });
    expect(r.success ? [] : r.error.issues.map((i) => i.path.join('.'))).toEqual(['response']);
  });
});

describe('result -> slime reward', () => {
  it('a bare number, 0 for an error; the detail keeps the error and the extras', () => {
    expect(toSlimeReward({ score: 0.5, extra: {} })).toBe(0.5);
    expect(toSlimeReward({ error: { code: 'timeout', message: 'm' } })).toBe(0);
    expect(toSlimeDetail({ score: 1, extra: { acc: true } })).toEqual({ score: 1, error: null, extra: { acc: true } });
    expect(toSlimeDetail({ error: { code: 'timeout', message: 'm' } })).toEqual({ score: 0, error: { code: 'timeout', message: 'm' }, extra: {} });
  });
});
