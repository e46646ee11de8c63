import { describe, expect, it } from 'vitest';
import { lastBoxedOnlyString, removeBoxed } from './math-reward-boxed.ts';

// Expected values come from verl's math_reward.last_boxed_only_string and
// remove_boxed (verl b178a3c); content null where remove_boxed's assert fails.
const CASES: Array<{ name: string; input: string; boxed: string | null; content: string | null }> = [
  { name: 'no box', input: 'answer 5', boxed: null, content: null },
  { name: 'simple', input: 'x \\boxed{5} y', boxed: '\\boxed{5}', content: '5' },
  { name: 'last of two', input: '\\boxed{1}\\boxed{2}', boxed: '\\boxed{2}', content: '2' },
  { name: 'nested', input: '\\boxed{\\frac{1}{2}} tail', boxed: '\\boxed{\\frac{1}{2}}', content: '\\frac{1}{2}' },
  { name: 'unbalanced', input: '\\boxed{\\frac{1}{2}', boxed: null, content: null },
  { name: 'space form to "$"', input: 'a $\\boxed 5$ b', boxed: '\\boxed 5', content: '5' },
  { name: 'space form without "$"', input: 'a \\boxed 5 b', boxed: '\\boxed 5 b', content: '5 b' },
  { name: 'space form wins over a later brace form', input: '\\boxed 1 \\boxed{2}', boxed: '\\boxed 1 \\boxed{2}', content: '1 \\boxed{2}' },
  { name: 'fbox (remove_boxed asserts)', input: '\\fbox{5}', boxed: '\\fbox{5}', content: null },
  { name: 'fbox only when no \\boxed', input: '\\fbox{5} \\boxed{6}', boxed: '\\boxed{6}', content: '6' },
  { name: '\\boxed without brace', input: '\\boxed5}', boxed: null, content: null },
  { name: '"}" first (remove_boxed asserts)', input: '\\boxed}{{5}', boxed: '\\boxed}{{5}', content: null },
  { name: 'astral', input: '\\boxed{😀}', boxed: '\\boxed{😀}', content: '😀' },
  { name: 'empty', input: '\\boxed{}', boxed: '\\boxed{}', content: '' },
  { name: '\\boxed then text', input: 'x\\boxed', boxed: null, content: null },
];

describe('lastBoxedOnlyString / removeBoxed (verl math_reward)', () => {
  it.each(CASES)('$name', ({ input, boxed, content }) => {
    const found = lastBoxedOnlyString(input);
    expect(found).toBe(boxed);
    expect(found === null ? null : removeBoxed(found)).toBe(content);
  });
});
