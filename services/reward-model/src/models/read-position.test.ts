import { describe, expect, it } from 'vitest';
import { readAtOf, readIndex } from './read-position.ts';

describe('where a one-label head is read', () => {
  it('...ForTokenClassification (verl’s reward model) at the last token, ...ForSequenceClassification at the last non-pad token', () => {
    expect(readAtOf('Qwen3ForTokenClassification')).toBe('last_token');
    expect(readAtOf('LlamaForSequenceClassification')).toBe('last_non_pad');
    expect(readIndex([5, 6, 0, 0], 'last_token', 0)).toBe(3);
    expect(readIndex([5, 6, 0, 0], 'last_non_pad', 0)).toBe(1);
    // transformers' argmax over (ids != pad) * arange: a pad inside the sequence is skipped only at the end.
    expect(readIndex([0, 6, 0, 7], 'last_non_pad', 0)).toBe(3);
  });

  it('with no pad_token_id the last token, and 0 when every token is the pad', () => {
    expect(readIndex([5, 6, 0], 'last_non_pad', null)).toBe(2);
    expect(readIndex([0, 0], 'last_non_pad', 0)).toBe(0);
  });
});
