import { describe, expect, it } from 'vitest';
import { trainBpe } from './train-bpe.ts';
import { BYTE_TO_CHAR, CHAR_TO_BYTE } from './byte-level.ts';

describe('trainBpe', () => {
  it('merges the most frequent pair first and breaks ties by the merged string', () => {
    // "ab" and "cd" both occur twice: "ab" sorts first; then "abab" (once, allowed by minFrequency 1).
    const json = trainBpe(['abab', 'cd', 'cd', 'xy'], { vocabSize: 256 + 1 + 3, specials: ['<pad>'], minFrequency: 1 });
    expect(json.model.merges).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['ab', 'ab'],
    ]);
    expect(json.model.vocab).toMatchObject({ ab: 257, cd: 258, abab: 259 });
  });

  it('stops below minFrequency and is deterministic', () => {
    const a = trainBpe(['hello world', 'hello there'], { vocabSize: 1000, specials: [] });
    const b = trainBpe(['hello world', 'hello there'], { vocabSize: 1000, specials: [] });
    expect(a).toEqual(b);
    expect(Object.keys(a.model.vocab).length).toBeLessThan(1000);
  });

  it('gpt2 keeps numbers whole, qwen2 splits them into digits', () => {
    const texts = Array.from({ length: 20 }, () => 'x 123 y');
    const gpt2 = trainBpe(texts, { vocabSize: 300, specials: [], pretokenizer: 'gpt2' });
    const qwen2 = trainBpe(texts, { vocabSize: 300, specials: [], pretokenizer: 'qwen2' });
    expect(gpt2.model.vocab[`${BYTE_TO_CHAR[32]}123`]).toBeDefined();
    expect(Object.keys(qwen2.model.vocab).some((t) => /\d\d/.test(t))).toBe(false);
  });

  it('refuses a vocabulary smaller than bytes + specials', () => {
    expect(() => trainBpe(['a'], { vocabSize: 256, specials: ['<pad>'] })).toThrow(/vocabSize/);
  });
});

describe('byte-level table', () => {
  it('is GPT-2 bytes_to_unicode: printable bytes map to themselves, the rest shift past 255 in order', () => {
    expect(BYTE_TO_CHAR[65]).toBe('A');
    expect(BYTE_TO_CHAR[32]).toBe('\u0120');
    expect(BYTE_TO_CHAR[0]).toBe('\u0100');
    expect(new Set(BYTE_TO_CHAR).size).toBe(256);
    expect(CHAR_TO_BYTE.get('\u0120')).toBe(32);
  });
});
