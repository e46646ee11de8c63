import { describe, expect, it } from 'vitest';
import { PY_DOT, PY_WORD_CLASS_BODY, PY_WORD_END, PY_WORD_START } from './regex.ts';

// Expected values are CPython 3.11's re on str.
describe('Python regex fragments', () => {
  it('PY_DOT matches \\r, \\u2028 and \\u2029 but not \\n', () => {
    const dot = new RegExp(`^${PY_DOT}$`, 'u');
    expect(['\r', '\u2028', '\u2029', '😀'].map((c) => dot.test(c))).toEqual([true, true, true, true]);
    expect(dot.test('\n')).toBe(false);
  });

  it('PY_WORD_CLASS_BODY is Unicode \\w: letters and numbers, not combining marks', () => {
    const word = new RegExp(`^[${PY_WORD_CLASS_BODY}]$`, 'u');
    const chars = ['é', '\u0301', '_', '²', '½', 'Ⅻ', '-', '𝐀'];
    expect(chars.map((c) => word.test(c))).toEqual([true, false, true, true, true, true, false, true]);
  });

  it('PY_WORD_START/END behave as \\b around a word', () => {
    const the = new RegExp(`${PY_WORD_START}the${PY_WORD_END}`, 'gu');
    expect('the théthe the_ the\u0301 (the)'.replace(the, 'X')).toBe('X théthe the_ X\u0301 (X)');
  });
});
