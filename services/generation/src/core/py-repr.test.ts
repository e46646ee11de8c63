import { describe, expect, it } from 'vitest';
import { pyFloatRepr, pyRepr, pyStr, pyStrRepr } from './py-repr.ts';

describe('Python repr/str of JSON values', () => {
  it('quotes strings as Python repr does', () => {
    expect(pyStrRepr('18')).toBe("'18'");
    expect(pyStrRepr("it's")).toBe('"it\'s"');
    expect(pyStrRepr('both \' and "')).toBe("'both \\' and \"'");
    expect(pyStrRepr('a\\b\n\t\x01\u200b é 😀')).toBe("'a\\\\b\\n\\t\\x01\\u200b é 😀'");
  });

  it('prints floats like repr(float)', () => {
    expect(pyFloatRepr(1)).toBe('1.0');
    expect(pyFloatRepr(0)).toBe('0.0');
    expect(pyFloatRepr(-0.05)).toBe('-0.05');
    expect(pyFloatRepr(0.0001)).toBe('0.0001');
    expect(pyFloatRepr(0.00001)).toBe('1e-05');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1234567890123456.7)).toBe('1234567890123456.8');
    expect(pyFloatRepr(Number.NaN)).toBe('nan');
  });

  it('str() of non-strings: ints, bools, None, lists and dicts', () => {
    expect(pyStr('x')).toBe('x');
    expect(pyStr(18)).toBe('18');
    expect(pyStr(2.5)).toBe('2.5');
    expect(pyStr(true)).toBe('True');
    expect(pyStr(null)).toBe('None');
    expect(pyRepr(['a', 1, { k: null }])).toBe("['a', 1, {'k': None}]");
  });
});
