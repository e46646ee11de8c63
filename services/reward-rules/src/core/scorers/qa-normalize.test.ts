import { describe, expect, it } from 'vitest';
import { normalizeAnswer } from './qa-normalize.ts';

// Expected values come from verl's search_r1_like_qa_em.normalize_answer (verl b178a3c).
const CASES: Array<{ name: string; input: string; expected: string }> = [
  { name: 'lower, punctuation, articles, spaces', input: '  The  Quick, BROWN fox! ', expected: 'quick brown fox' },
  { name: 'articles as whole words only', input: 'another theme a an the', expected: 'another theme' },
  { name: 'all ASCII punctuation', input: '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~x', expected: 'x' },
  { name: 'non-ASCII punctuation kept', input: '«x» — “y”', expected: '«x» — “y”' },
  { name: 'punctuation removed before articles', input: 'the-end a.b', expected: 'theend ab' },
  { name: 'Unicode word boundary', input: 'aé the² an\u0301 the_', expected: 'aé the² \u0301' },
  { name: 'Python whitespace', input: 'a\u001cb\u0085c\u3000d\ufeffe', expected: 'b c d\ufeffe' },
  { name: 'final sigma', input: 'ΟΔΟΣ ΣΑΣ', expected: 'οδος σας' },
  { name: 'dotted I', input: 'İSTANBUL', expected: 'i\u0307stanbul' },
  { name: 'ß unchanged', input: 'STRAẞE straße', expected: 'straße straße' },
  { name: 'empty', input: '', expected: '' },
  { name: 'only articles', input: 'a an the', expected: '' },
];

describe('normalizeAnswer (verl search_r1_like_qa_em.normalize_answer)', () => {
  it.each(CASES)('$name', ({ input, expected }) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });
});
