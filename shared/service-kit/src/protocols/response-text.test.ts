import { describe, expect, it } from 'vitest';
import { responseAfterPrompt, stripTrailingSpecialTokens } from './response-text.ts';

describe('stripTrailingSpecialTokens', () => {
  it.each([
    ['#### 18<|im_end|>', '#### 18'],
    ['#### 18<|im_end|>\n<|endoftext|><|endoftext|>', '#### 18'],
    ['#### 18 </s>', '#### 18 '], // whitespace the model wrote before the token stays
    ['#### 18\n', '#### 18\n'], // no token: nothing changes
    ['<|im_end|> in the middle, then text', '<|im_end|> in the middle, then text'],
    ['<|eot_id|>', ''],
    ['', ''],
  ])('%j -> %j', (input, expected) => expect(stripTrailingSpecialTokens(input)).toBe(expected));
});

describe('responseAfterPrompt', () => {
  const prompt = '<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n';
  it('cuts the prompt and the end-of-turn token', () => {
    expect(responseAfterPrompt(`${prompt}9+9 = 18. #### 18<|im_end|>`, prompt)).toBe('9+9 = 18. #### 18');
  });
  it('finds a left-truncated prompt: the longest suffix of the prompt that starts the query', () => {
    const truncated = prompt.slice(10);
    expect(responseAfterPrompt(`${truncated}#### 18`, prompt)).toBe('#### 18');
  });
  it('takes the whole query when it shares nothing with the prompt, or when there is no prompt', () => {
    expect(responseAfterPrompt('#### 18<|im_end|>', 'something else')).toBe('#### 18');
    expect(responseAfterPrompt('#### 18', '')).toBe('#### 18');
  });
  it('an empty query is an empty response', () => {
    expect(responseAfterPrompt('', prompt)).toBe('');
  });
  it('stays linear on a periodic prompt that never matches exactly', () => {
    const p = 'a'.repeat(200_000);
    const q = `${'a'.repeat(150_000)}b`;
    expect(responseAfterPrompt(q, p)).toBe('b');
  });
});
