import { describe, expect, it } from 'vitest';
import { pyCount, pyIntRoundTrips, pyIsDigit, pyReplace } from './str.ts';

// Expected values are CPython 3.11's.
describe('pyIsDigit (Python str.isdigit)', () => {
  it.each([
    ['123', true],
    ['', false],
    ['²', true],
    ['①', true],
    ['½', false],
    ['١٢', true],
    ['𝟙', true],
    ['1a', false],
    ['🄀', true],
    ['Ⅻ', false],
    ['٣', true],
  ])('%j.isdigit() is %s', (s, expected) => {
    expect(pyIsDigit(s)).toBe(expected);
  });
});

describe('pyReplace / pyCount', () => {
  it('replaces every non-overlapping occurrence and never expands "$" patterns', () => {
    expect(pyReplace('a$b', '$', '$$')).toBe('a$$b');
    expect(pyReplace('aaa', 'aa', 'b')).toBe('ba');
    expect(pyReplace('abc', 'x', 'y')).toBe('abc');
  });

  it('counts non-overlapping occurrences', () => {
    expect(pyCount('aaaa', 'aa')).toBe(2);
    expect(pyCount('abc', 'x')).toBe(0);
  });
});

describe('pyIntRoundTrips (str(int(s)) == s without ValueError)', () => {
  it.each([
    ['0', true],
    ['-0', false],
    ['12', true],
    ['-12', true],
    ['012', false],
    ['+1', false],
    [' 1', false],
    ['1_000', false],
    ['٣', false],
    ['', false],
    ['-', false],
    ['-' + '1'.repeat(4300), true],
    ['1'.repeat(4300), true],
    ['1'.repeat(4301), false],
  ])('%j', (s, expected) => {
    expect(pyIntRoundTrips(s)).toBe(expected);
  });
});
