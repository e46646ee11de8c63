import { describe, expect, it } from 'vitest';
import { buildVocabulary, CHAR_WEIGHT, FUNCTION_WORD_WEIGHT, rankWeight, SUFFIX_WEIGHT } from './vocabulary.ts';

const WORDS = ['the', 'of', 'and', 'sword', 'knight', 'swords', 'dragon', 'walked', 'walk', 'fire'];

describe('rankWeight', () => {
  it('grows with rank like an IDF and is capped at 1 for the rarest listed word', () => {
    expect(rankWeight(1, 40_000)).toBe(0.05); // floor: ln(0.6) < 0
    expect(rankWeight(100, 40_000)).toBeCloseTo(Math.log(60) / Math.log(24_000), 3);
    expect(rankWeight(40_000, 40_000)).toBe(1);
    expect(rankWeight(1_000, 40_000)).toBeGreaterThan(rankWeight(100, 40_000));
  });
});

describe('buildVocabulary', () => {
  const v = buildVocabulary(WORDS, { continuationWords: 3 });
  const id = (t: string) => {
    const i = v.tokens.indexOf(t);
    expect(i, t).toBeGreaterThanOrEqual(0);
    return i;
  };

  it('starts with the special tokens, all weightless', () => {
    expect(v.tokens.slice(0, 4)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]']);
    for (const t of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ',', '“']) expect(v.weights[id(t)], t).toBe(0);
  });

  it('gives inflected forms their base word’s vector and weight', () => {
    expect(v.lexemes[id('swords')]).toBe(v.lexemes[id('sword')]);
    expect(v.weights[id('swords')]).toBe(v.weights[id('sword')]);
    expect(v.lexemes[id('walked')]).toBe(v.lexemes[id('walk')]);
    expect(v.lexemes[id('knight')]).not.toBe(v.lexemes[id('sword')]);
  });

  it('caps function words and weights pieces low', () => {
    expect(v.weights[id('of')]).toBe(Math.fround(FUNCTION_WORD_WEIGHT)); // its rank alone would give 0.102
    expect(v.weights[id('##ed')]).toBeCloseTo(SUFFIX_WEIGHT, 6);
    expect(v.weights[id('##q')]).toBeCloseTo(CHAR_WEIGHT, 6);
    expect(v.weights[id('q')]).toBeCloseTo(CHAR_WEIGHT, 6);
  });

  it('adds ##word pieces for the first content words, sharing the word’s vector', () => {
    expect(v.lexemes[id('##sword')]).toBe(v.lexemes[id('sword')]);
    expect(v.lexemes[id('##knight')]).toBe(v.lexemes[id('knight')]);
    expect(v.tokens).not.toContain('##the'); // a function word
    expect(v.tokens).not.toContain('##dragon'); // beyond continuationWords (sword, knight, swords)
  });

  it('has unique tokens and lexemes within the counted range', () => {
    expect(new Set(v.tokens).size).toBe(v.tokens.length);
    expect(Math.max(...v.lexemes)).toBe(v.lexemeCount - 1);
  });
});
