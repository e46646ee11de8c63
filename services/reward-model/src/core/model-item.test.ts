import { describe, expect, it } from 'vitest';
import { toModelItem } from './model-item.ts';

const base = { data_source: 'd', solution_str: 'the response', ground_truth: '18' };

describe('toModelItem', () => {
  it('takes the conversation from extra_info.messages, else extra_info.prompt (a chat or one user turn)', () => {
    const messages = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'q' },
    ];
    expect(toModelItem({ ...base, extra_info: { messages, prompt: 'ignored' } }).messages).toEqual(messages);
    expect(toModelItem({ ...base, extra_info: { prompt: messages } }).messages).toEqual(messages);
    expect(toModelItem({ ...base, extra_info: { prompt: 'What is 9+9?' } }).messages).toEqual([{ role: 'user', content: 'What is 9+9?' }]);
    expect(toModelItem({ ...base, extra_info: null }).messages).toEqual([]);
  });

  it('carries the response, the reference as text and extra_info', () => {
    expect(toModelItem({ ...base, extra_info: { split: 'test' } })).toEqual({
      dataSource: 'd',
      messages: [],
      response: 'the response',
      groundTruth: '18',
      extraInfo: { split: 'test' },
    });
    expect(toModelItem({ ...base, ground_truth: ['a', 'b'] }).groundTruth).toBe('["a","b"]');
    expect(toModelItem({ ...base, ground_truth: null })).not.toHaveProperty('groundTruth');
  });

  it('refuses a malformed conversation naming the field', () => {
    expect(() => toModelItem({ ...base, extra_info: { messages: [{ role: 'user' }] } })).toThrow(/^extra_info\.messages\[0\]\[content\]: /);
    expect(() => toModelItem({ ...base, extra_info: { messages: 'hi' } })).toThrow(/^extra_info\.messages: /);
    expect(() => toModelItem({ ...base, extra_info: { prompt: 42 } })).toThrow(
      expect.objectContaining({ code: 'invalid_params', message: expect.stringContaining('or a string') }),
    );
  });
});
