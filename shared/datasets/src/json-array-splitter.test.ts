import { describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { JsonArraySplitter } from './json-array-splitter.ts';

// Feeds `text` in chunks of the given sizes (cycled) and returns every element text.
function split(text: string, sizes: number[] = [text.length || 1]): string[] {
  const s = new JsonArraySplitter();
  const out: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(...s.push(text.slice(i, i + n)));
    i += n;
  }
  s.end();
  return out;
}

const TRICKY = [
  { system: 'brackets ] and } and , inside "quotes"', conversations: [{ from: 'user', value: 'a\\"]},' }] },
  { s: '物語 😀 é', n: [1, [2, { x: null }]] },
  'plain string with \\\\ backslashes \\\\',
  42,
  null,
  [],
  {},
];

describe('JsonArraySplitter', () => {
  it('returns each element as its source text, which JSON.parse turns back into the element', () => {
    const text = JSON.stringify(TRICKY, null, 2);
    expect(split(text).map((e) => JSON.parse(e))).toEqual(TRICKY);
  });

  it('gives the same elements however the input is chunked (down to one character)', () => {
    const text = `\n  ${JSON.stringify(TRICKY)}  \n`;
    const whole = split(text);
    expect(split(text, [1])).toEqual(whole);
    const rng = createRng(42);
    for (let trial = 0; trial < 50; trial++) {
      const sizes = Array.from({ length: 8 }, () => rng.int(1, 17));
      expect(split(text, sizes)).toEqual(whole);
    }
  });

  it('handles an empty array and keeps empty slots as broken elements', () => {
    expect(split('[]')).toEqual([]);
    expect(split(' [ \n ] ')).toEqual([]);
    expect(split('[1,,2]')).toEqual(['1', '', '2']);
    expect(split('[1,]')).toEqual(['1', '']);
    expect(split('[{"a":1}}, 2]')).toEqual(['{"a":1}}', '2']);
  });

  it('rejects what is not one array: no array, text after it, a truncated file', () => {
    expect(() => split('{"a": 1}')).toThrow(expect.objectContaining({ code: 'bad_request' }));
    expect(() => split('[1] [2]')).toThrow(expect.objectContaining({ code: 'bad_request' }));
    expect(() => split('[1, {"a": [2')).toThrow(expect.objectContaining({ code: 'bad_request', message: expect.stringContaining('not closed') }));
    expect(() => split('[1, "unterminated]')).toThrow(expect.objectContaining({ code: 'bad_request' }));
    expect(() => new JsonArraySplitter().end()).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });
});
