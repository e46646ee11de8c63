import { describe, expect, it } from 'vitest';
import { findPrototypeKey, getOwn, isPrototypeKey, setOwn } from './own-keys.ts';

describe('own-key helpers', () => {
  it('names the prototype keys', () => {
    expect(['__proto__', 'constructor', 'prototype'].map(isPrototypeKey)).toEqual([true, true, true]);
    expect(['proto', 'toString', '__proto', 'Constructor'].map(isPrototypeKey)).toEqual([false, false, false, false]);
  });

  it('reads own properties only', () => {
    const table: Record<string, number> = { gsm8k: 1 };
    expect(getOwn(table, 'gsm8k')).toBe(1);
    expect(['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((k) => getOwn(table, k))).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('writes __proto__ as a data property, leaving the prototype alone', () => {
    const out: Record<string, unknown> = {};
    setOwn(out, '__proto__', { polluted: 1 });
    setOwn(out, 'x', 2);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'x']);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('finds a prototype key at any depth, without recursion', () => {
    expect(findPrototypeKey({ a: { b: [1, { c: 2 }] } })).toBeUndefined();
    expect(findPrototypeKey(JSON.parse('{"a": {"b": [1, {"__proto__": 2}]}}'))).toBe('a.b[1].__proto__');
    expect(findPrototypeKey({ a: { constructor: 1 } })).toBe('a.constructor');
    let deep: unknown = { prototype: 1 };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findPrototypeKey(deep)).toBe(`${'[0]'.repeat(100_000)}.prototype`);
  });
});
