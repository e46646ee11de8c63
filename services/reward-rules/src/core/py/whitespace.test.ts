import { describe, expect, it } from 'vitest';
import { PY_WS_CLASS_BODY, isPySpace, pySplit, pyStrip } from './whitespace.ts';

// Every code point for which CPython 3.11's str.isspace() (and re's \s) is true.
const PYTHON_SPACES = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
  0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

describe('Python whitespace set', () => {
  const classRe = new RegExp(`^[${PY_WS_CLASS_BODY}]$`, 'u');
  it('isPySpace and PY_WS_CLASS_BODY match exactly the CPython set over the BMP', () => {
    const fromFn: number[] = [];
    const fromClass: number[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (isPySpace(c)) fromFn.push(c);
      if (classRe.test(String.fromCharCode(c))) fromClass.push(c);
    }
    expect(fromFn).toEqual(PYTHON_SPACES);
    expect(fromClass).toEqual(PYTHON_SPACES);
  });

  it('differs from JS \\s on \\x1c-\\x1f, \\x85 and \\ufeff', () => {
    expect(isPySpace(0x1c)).toBe(true);
    expect(isPySpace(0x85)).toBe(true);
    expect(isPySpace(0xfeff)).toBe(false);
  });
});

describe('pyStrip (Python str.strip)', () => {
  it.each([
    ['\x1c\x1d\x1e\x1f\x85 a \u3000', 'a'],
    ['\ufeffa\ufeff', '\ufeffa\ufeff'],
    ['\u200b a', '\u200b a'],
    ['', ''],
    ['   ', ''],
  ])('%j.strip()', (s, expected) => {
    expect(pyStrip(s)).toBe(expected);
  });
});

describe('pySplit (Python str.split())', () => {
  it.each([
    ['a\x1cb\x85c  d\u00a0e', ['a', 'b', 'c', 'd', 'e']],
    ['\ufeff', ['\ufeff']],
    ['  ', []],
    ['\u180e', ['\u180e']],
    [' x ', ['x']],
  ])('%j.split()', (s, expected) => {
    expect(pySplit(s)).toEqual(expected);
  });
});
