import { format, inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { testIsolateRunner } from './testing/runner.ts';
import { testRunSpec } from '../../core/testing/run-spec.ts';

// The in-isolate util.inspect port must print exactly what Node prints, because
// console.log output is what graders compare. Each expression is evaluated both in
// the host and in the isolate.
const EXPRESSIONS = [
  '[1, 2, 3]',
  '{ a: 1, b: "two", c: [3, { d: 4 }] }',
  '[-0, 0, NaN, Infinity, 1e21, 1e-7, 10n]',
  'Array.from({ length: 30 }, (_, i) => i * 7)',
  'Array.from({ length: 130 }, (_, i) => i)',
  'Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i).repeat((i % 5) + 1))',
  'Array.from({ length: 8 }, (_, i) => ({ id: i, name: "item" + i }))',
  '{ deep: { deeper: { deepest: { gone: 1 } } } }',
  '[[1, 2, 3], [4, 5, 6], [7, 8, 9]]',
  '[1, , 3, , , 6]',
  'new Map([["a", 1], ["b", { c: [1, 2] }]])',
  'new Set([1, "a", [2]])',
  '[new Date(0), /re+/gi, Symbol("s"), null, undefined]',
  '["it\'s", \'say "hi"\', "both \' and \\"", "new\\nline", "tab\\t"]',
  '(() => { const o = { a: 1 }; o.self = o; return [o]; })()',
  '{ "key with space": 1, valid_id: 2, 3: "num" }',
  '[function named() {}, async () => {}, class Foo {}, Math.max]',
  '[new Uint8Array([1, 2, 3]), new Float64Array(2)]',
  'Object.create(null)',
  '[new Number(3), new String("ab"), new Boolean(false)]',
  '"x".repeat(120)',
  '{ long: "c".repeat(90), list: ["d".repeat(40), "e".repeat(40)] }',
  '["日本語", "abc", "中文字符", "x", "y", "z", "w"]',
  '(() => { class P { constructor() { this.x = 1; } } return [new P(), { p: new P() }]; })()',
  '(() => { const e = new RangeError("bad"); e.code = "E_X"; return Object.keys(e); })()',
];

const runner = testIsolateRunner({ spareWorkers: 0 });
afterAll(() => runner.close());

describe('in-isolate inspect', () => {
  it('matches node:util inspect and format', async () => {
    const code = `const util = require('util');
      const values = [${EXPRESSIONS.join(',\n')}];
      for (const v of values) console.log(util.inspect(v));
      console.log('%s is %d, %i, %f, %j %o %O %%', 'Bob', 42.5, 42.5, '3.5', { a: 1 }, [1], { b: 2 });
      console.log('%c', 'css', 'rest', 5, { a: [1] });`;
    const outcome = await runner.run(testRunSpec('nodejs', code), new AbortController().signal);
    const values = new Function(`return [${EXPRESSIONS.join(',\n')}];`)() as unknown[];
    const expected = [
      ...values.map((v) => inspect(v)),
      format('%s is %d, %i, %f, %j %o %O %%', 'Bob', 42.5, 42.5, '3.5', { a: 1 }, [1], { b: 2 }),
      format('%c', 'css', 'rest', 5, { a: [1] }),
    ].join('\n');
    expect(outcome.run_result?.stderr).toBe('');
    expect(outcome.run_result?.stdout).toBe(`${expected}\n`);
  });
});
