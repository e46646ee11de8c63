import { describe, expect, it } from 'vitest';
import { maxContainment, wordTokens } from './lexical-overlap.ts';

describe('wordTokens', () => {
  it('lower-cases words and drops punctuation', () => {
    expect(wordTokens('He nods: "The DRAGON burned it!"')).toEqual(['he', 'nods', 'the', 'dragon', 'burned', 'it']);
  });

  it('splits Chinese and Japanese into characters but keeps other words whole', () => {
    expect(wordTokens('骑士拔剑 knight café')).toEqual(['骑', '士', '拔', '剑', 'knight', 'café']);
    expect(wordTokens('ドラゴンだ')).toEqual(['ド', 'ラ', 'ゴ', 'ン', 'だ']);
  });
});

describe('maxContainment', () => {
  it('is 1 for a verbatim copy, whatever the case and punctuation', () => {
    expect(maxContainment('the dragon burned the mill', ['The dragon burned the mill!'])).toBe(1);
    expect(maxContainment('a b c d', ['x y z', 'A, b; c. D'])).toBe(1);
  });

  it('is the share of the text’s distinct trigrams found in the closest source', () => {
    // Trigrams of the text: (a b c) (b c d) (c d e) (d e f); the first source has the first two.
    expect(maxContainment('a b c d e f', ['a b c d', 'e f'])).toBe(0.5);
    expect(maxContainment('a b c d e f', ['q r s'])).toBe(0);
  });

  it('uses n-grams of the text’s own length when it is shorter than n', () => {
    expect(maxContainment('yes indeed', ['oh yes indeed he said'])).toBe(1);
    expect(maxContainment('yes', ['no'])).toBe(0);
  });

  it('is 0 for a text without words or without sources', () => {
    expect(maxContainment('...', ['...'])).toBe(0);
    expect(maxContainment('a b c', [])).toBe(0);
  });

  it('rises as more of the text is copied', () => {
    const source = 'the knight raises his lantern and asks your name at the gate';
    const copied = ['the knight draws a sword by the river', 'the knight raises his lantern by the river', 'the knight raises his lantern and asks your name'];
    const values = copied.map((t) => maxContainment(t, [source]));
    expect(values[0]).toBeLessThan(values[1]!);
    expect(values[1]).toBeLessThan(values[2]!);
    expect(values[2]).toBe(1);
  });
});
