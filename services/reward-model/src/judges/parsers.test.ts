import { describe, expect, it } from 'vitest';
import { ParserConfig } from './judge-config.ts';
import { createParser, normalizeScore, stripThinking } from './parsers.ts';

const parser = (spec: unknown) => createParser(ParserConfig.parse(spec));

describe('stripThinking', () => {
  it.each([
    ['<think>Score: 2</think>Score: 9', 'Score: 9'],
    ['a<think>x</think>b<think>y</think>c', 'abc'],
    // The template opened the block in the prompt: only the closing tag comes back.
    ['Score: 1 maybe...</think>\nScore: 8', 'Score: 8'],
    // Cut by max_tokens inside the thinking: nothing is an answer.
    ['Score: 3 <think>Let me think, Score: 4', 'Score: 3'],
    ['<think>never closed Score: 4', ''],
    ['plain', 'plain'],
  ])('%j -> %j', (text, want) => {
    expect(stripThinking(text)).toBe(want);
  });
});

describe('pattern parser', () => {
  const p = parser({ type: 'pattern', pattern: 'Score:\\s*(\\d+(?:\\.\\d+)?)' });
  it('reads the last match by default, case-insensitively', () => {
    expect(p('Rate on Score: 1 to Score: 10.\nscore: 7.5')).toEqual({ ok: true, value: 7.5 });
  });
  it('reads the first match when asked', () => {
    expect(parser({ type: 'pattern', pattern: 'Score:\\s*(\\d+)', match: 'first' })('Score: 3 ... Score: 4')).toEqual({ ok: true, value: 3 });
  });
  it('fails without a match', () => {
    expect(p('I liked it').ok).toBe(false);
  });
  it('fails when the group is not a number', () => {
    expect(parser({ type: 'pattern', pattern: 'Score:\\s*(\\S+)' })('Score: high').ok).toBe(false);
  });
});

describe('boxed parser', () => {
  const p = parser({ type: 'boxed' });
  it.each([
    ['so \\boxed{3} then \\boxed{ 8 }', 8],
    ['\\boxed{-0.5}', -0.5],
  ])('%j -> %d', (text, want) => {
    expect(p(text)).toEqual({ ok: true, value: want });
  });
  it.each(['\\boxed{seven}', '\\boxed{7', 'no box', '\\boxed{{7}}'])('%j fails', (text) => {
    expect(p(text).ok).toBe(false);
  });
});

describe('json parser', () => {
  const p = parser({ type: 'json', field: 'verdict.score' });
  it.each([
    ['{"verdict": {"score": 6}}', 6],
    ['Here:\n```json\n{"verdict": {"score": "4"}}\n```', 4],
    ['My answer is {"verdict": {"score": 2.5}} done', 2.5],
  ])('%j -> %d', (text, want) => {
    expect(p(text)).toEqual({ ok: true, value: want });
  });
  it.each(['{"verdict": {"points": 6}}', '{"verdict": {"score": "six"}}', 'no json', '{broken'])('%j fails', (text) => {
    expect(p(text).ok).toBe(false);
  });
  it('does not read inherited keys', () => {
    expect(parser({ type: 'json', field: 'constructor' })('{}').ok).toBe(false);
  });
});

describe('yes_no parser', () => {
  const p = parser({ type: 'yes_no', yes: ['yes', 'correct', '是'], no: ['no', 'incorrect', '否'] });
  it.each([
    ['Is it right? Yes.', 1],
    ['I know it looks right, but no', 0],
    ['The answer is incorrect', 0],
    ['Correct!', 1],
    ['No wait... YES', 1],
    ['结论：否', 0],
    ['答案：是', 1],
  ])('%j -> %d', (text, want) => {
    expect(p(text)).toEqual({ ok: true, value: want });
  });
  it('fails when neither word appears (not inside other words)', () => {
    expect(p('I know nothing of it').ok).toBe(false);
  });
});

describe('normalizeScore', () => {
  it('maps the range onto [0, 1]', () => {
    expect(normalizeScore(1, [1, 10])).toEqual({ ok: true, value: 0 });
    expect(normalizeScore(10, [1, 10])).toEqual({ ok: true, value: 1 });
    expect(normalizeScore(4, [1, 10])).toEqual({ ok: true, value: 1 / 3 });
  });
  it('refuses a score outside the range instead of clamping it', () => {
    expect(normalizeScore(11, [1, 10]).ok).toBe(false);
    expect(normalizeScore(0, [1, 10]).ok).toBe(false);
  });
});
