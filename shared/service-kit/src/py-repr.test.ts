import { describe, expect, it } from 'vitest';
import { parseJsonForPython, pyFloatRepr, pyNumberText, pyRepr, pyStr, pyStringRepr } from './py-repr.ts';

// [JSON text, Python str(json.loads(text))]: expected values from CPython 3.11.
const FROM_JSON_TEXT: Array<[string, string]> = [
  ['1.0', '1.0'],
  ['12345678901234567890', '12345678901234567890'],
  ['-0', '0'],
  ['1e5', '100000.0'],
  ['0.1', '0.1'],
  ['1e16', '1e+16'],
  ['1.5e16', '1.5e+16'],
  ['1234567890123456.0', '1234567890123456.0'],
  ['0.0001', '0.0001'],
  ['0.00001', '1e-05'],
  ['1e-7', '1e-07'],
  ['123.456', '123.456'],
  ['-2.5e-10', '-2.5e-10'],
  ['1e400', 'inf'],
  ['-0.0', '-0.0'],
  ['3.141592653589793', '3.141592653589793'],
  ['1e22', '1e+22'],
  ['5e-324', '5e-324'],
  [
    '[1, "a", null, true, false, 2.5, {"k": "it\'s", "q": "say \\"hi\\" it\'s"}]',
    "[1, 'a', None, True, False, 2.5, {'k': \"it's\", 'q': 'say \"hi\" it\\'s'}]",
  ],
  [
    '["tab\\there\\nnl\\\\ \\u0007 \\u007f \\u00e9 \\u00a0 \\u200b \\ud83d\\ude00 \\u2028"]',
    "['tab\\there\\nnl\\\\ \\x07 \\x7f \u00e9 \\xa0 \\u200b \ud83d\ude00 \\u2028']",
  ],
  ['[[1,2,3],4]', '[[1, 2, 3], 4]'],
  ['{}', '{}'],
  ['[]', '[]'],
  ['["\'"]', '["\'"]'],
  ['["\\""]', "['\"']"],
  ['"plain \'text\'"', "plain 'text'"],
  ['null', 'None'],
  ['true', 'True'],
];

describe('pyStr of JSON text (Python str(json.loads(text)))', () => {
  it.each(FROM_JSON_TEXT)('%s', (text, expected) => {
    expect(pyStr(parseJsonForPython(text))).toBe(expected);
  });
});

describe('already-parsed values', () => {
  it.each<[unknown, string]>([
    [1, '1'],
    [1.5, '1.5'],
    [1e21, '1000000000000000000000'],
    [-0, '0'],
    [[1, 'a', null, { b: [true, false] }], "[1, 'a', None, {'b': [True, False]}]"],
    ['as is\n', 'as is\n'],
  ])('%j', (value, expected) => {
    expect(pyStr(value)).toBe(expected);
  });

  it('integral floats are indistinguishable from ints once parsed', () => {
    expect(pyNumberText(2, undefined)).toBe('2');
    expect(pyNumberText(2, '2.0')).toBe('2.0');
  });

  it('rejects values JSON cannot hold', () => {
    expect(() => pyRepr(undefined)).toThrow(TypeError);
    expect(() => pyRepr([new Date(0)])).toThrow(TypeError);
  });

  it('renders non-finite floats like Python', () => {
    expect([pyFloatRepr(Number.NaN), pyFloatRepr(-Infinity)]).toEqual(['nan', '-inf']);
  });
});

describe('Python repr/str of JSON values (tool texts)', () => {
  it('quotes strings as Python repr does', () => {
    expect(pyStringRepr('18')).toBe("'18'");
    expect(pyStringRepr("it's")).toBe('"it\'s"');
    expect(pyStringRepr('both \' and "')).toBe("'both \\' and \"'");
    expect(pyStringRepr('a\\b\n\t\x01\u200b é 😀')).toBe("'a\\\\b\\n\\t\\x01\\u200b é 😀'");
  });

  it('prints floats like repr(float)', () => {
    expect(pyFloatRepr(1)).toBe('1.0');
    expect(pyFloatRepr(0)).toBe('0.0');
    expect(pyFloatRepr(-0.05)).toBe('-0.05');
    expect(pyFloatRepr(0.0001)).toBe('0.0001');
    expect(pyFloatRepr(0.00001)).toBe('1e-05');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    // biome-ignore lint/correctness/noPrecisionLoss: the literal is rounded to the nearest double on purpose, as Python's would be
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
