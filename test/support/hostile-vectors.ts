// Hostile variants of a valid request body, for the hostile-input contract
// suite. Each vector rewrites every key, leaf or object of the body the same
// way, so one table serves every route and subject without knowing its schema.

/** The key a pollution vector tries to plant on Object.prototype; a follow-up answer that mentions it means it got there. */
export const PROBE_KEY = 'polluted_by_hostile_input';

/** One hostile request body: JSON text (possibly deliberately malformed) or raw bytes. */
export interface Vector {
  readonly name: string;
  readonly body: string | Uint8Array;
  /** Whether the vector plants a prototype key, so a 4xx must name one. */
  readonly pollutes?: boolean;
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Rebuilds `v` bottom-up; `obj` sees each rebuilt mapping, `leaf` each scalar. */
function rewrite(v: Json, obj: (o: Record<string, Json>) => Record<string, Json>, leaf: (x: Exclude<Json, Json[] | object>) => Json): Json {
  if (Array.isArray(v)) return v.map((x) => rewrite(x, obj, leaf));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) out[k] = rewrite(x, obj, leaf);
    return obj(out);
  }
  return leaf(v);
}

/** Adds `key: value` to every mapping as an own data property (`__proto__` included, which JSON.stringify then writes as a plain key). */
function withKeyEverywhere(body: Json, key: string, value: Json): string {
  const add = (o: Record<string, Json>) => {
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
    return o;
  };
  return JSON.stringify(rewrite(body, add, (x) => x));
}

const leaves = (body: Json, f: (x: Exclude<Json, Json[] | object>) => Json) => JSON.stringify(rewrite(body, (o) => o, f));
const strings = (body: Json, s: Json) => leaves(body, (x) => (typeof x === 'string' ? s : x));
const NUMBER_MARK = '\u0000number\u0000';
/** Every number leaf written as `text` (JSON.stringify cannot write 1e999 or 2^64 verbatim). */
const numbersAs = (body: Json, text: string) => leaves(body, (x) => (typeof x === 'number' ? NUMBER_MARK : x)).replaceAll(JSON.stringify(NUMBER_MARK), text);

const DEPTH = 10_000;
const deepArray = (): string => `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const DEEP_MARK = '\u0000deep\u0000';
/** Every leaf (or, with `asKey`, a new key in every mapping) replaced by an array nested {@link DEPTH} deep. */
function deep(body: Json, asKey: boolean): string {
  const text = asKey ? withKeyEverywhere(body, 'nest', DEEP_MARK) : leaves(body, () => DEEP_MARK);
  return text.replaceAll(JSON.stringify(DEEP_MARK), deepArray());
}

/** Raw bytes: the body with an invalid UTF-8 sequence inside its first string. */
function invalidUtf8(body: Json): Uint8Array {
  const text = JSON.stringify(body);
  const at = text.indexOf('":"') + 3;
  const bytes = Buffer.from(text, 'utf8');
  const cut = Buffer.byteLength(text.slice(0, at), 'utf8');
  return Buffer.concat([bytes.subarray(0, cut), Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]), bytes.subarray(cut)]);
}

/**
 * Every hostile variant of `body`: prototype keys in every mapping, prototype
 * names as every string, deep nesting, huge and non-finite numbers, huge
 * strings, lone surrogates and invalid UTF-8, type confusion and broken JSON.
 */
export function hostileBodies(body: Json, hugeStringBytes: number): Vector[] {
  const planted = { [PROBE_KEY]: 'yes' };
  return [
    { name: '__proto__ key in every mapping', body: withKeyEverywhere(body, '__proto__', planted), pollutes: true },
    { name: 'constructor.prototype in every mapping', body: withKeyEverywhere(body, 'constructor', { prototype: planted }), pollutes: true },
    { name: 'prototype key in every mapping', body: withKeyEverywhere(body, 'prototype', planted), pollutes: true },
    { name: 'every string is "__proto__"', body: strings(body, '__proto__') },
    { name: 'every string is "constructor"', body: strings(body, 'constructor') },
    { name: 'every string is "hasOwnProperty"', body: strings(body, 'hasOwnProperty') },
    { name: `every leaf nested ${DEPTH} deep`, body: deep(body, false) },
    { name: `a ${DEPTH}-deep key in every mapping`, body: deep(body, true) },
    { name: 'every number 1e999 (Infinity)', body: numbersAs(body, '1e999') },
    { name: 'every number -1e308', body: numbersAs(body, '-1e308') },
    { name: 'every number 2^64', body: numbersAs(body, '18446744073709551616') },
    { name: 'every number 1e-400 (underflow)', body: numbersAs(body, '1e-400') },
    { name: 'every string "1e999"', body: strings(body, '1e999') },
    { name: `every string ${hugeStringBytes} bytes`, body: strings(body, 'x'.repeat(hugeStringBytes)) },
    { name: 'every string with lone surrogates', body: strings(body, 'a\ud800b\udfffc\ud83d') },
    { name: 'invalid UTF-8 bytes in a string', body: invalidUtf8(body) },
    { name: 'every leaf null', body: leaves(body, () => null) },
    { name: 'every leaf an empty mapping', body: leaves(body, () => ({})) },
    { name: 'truncated JSON', body: JSON.stringify(body).slice(0, -1) },
    { name: 'a JSON scalar body', body: '"__proto__"' },
  ];
}

/** A YAML "billion laughs" in flow style: nine anchors, each ten aliases of the last (10^9 nodes if expanded). */
function aliasBomb(): string {
  const levels = ['&l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++)
    levels.push(
      `&l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return `[${levels.join(', ')}]`;
}

/**
 * Hostile Hydra-style overrides (the trainer's `overrides` and `rl-train --set`):
 * prototype segments in the key path, prototype keys and alias bombs in YAML
 * values, hostile nesting, non-finite numbers, lone surrogates.
 */
export function hostileOverrides(): Array<{ name: string; overrides: string[]; pollutes?: boolean }> {
  return [
    { name: 'trainer.__proto__ path', overrides: [`trainer.__proto__.${PROBE_KEY}=1`], pollutes: true },
    { name: '__proto__ at the root', overrides: [`__proto__.${PROBE_KEY}=1`], pollutes: true },
    { name: '++ and ~ through __proto__', overrides: [`++data.__proto__.${PROBE_KEY}=1`, '~trainer.__proto__.toString'], pollutes: true },
    { name: 'constructor.prototype path', overrides: [`constructor.prototype.${PROBE_KEY}=1`], pollutes: true },
    { name: 'a prototype leaf', overrides: ['data.prototype=1'], pollutes: true },
    { name: 'a YAML map value with a __proto__ key', overrides: [`trainer.x={__proto__: {${PROBE_KEY}: 1}}`], pollutes: true },
    { name: 'a YAML merge key value', overrides: [`trainer.x={<<: {__proto__: {${PROBE_KEY}: 1}}}`], pollutes: true },
    { name: 'a YAML alias bomb', overrides: [`trainer.x=${aliasBomb()}`] },
    { name: 'an undefined YAML alias and an unknown tag', overrides: ['trainer.x=*nowhere', 'trainer.y=!!js/function "return 1"'] },
    { name: 'YAML nested 2000 deep', overrides: [`trainer.x=${'['.repeat(2000)}${']'.repeat(2000)}`] },
    {
      name: 'non-finite and huge numbers',
      overrides: ['trainer.total_training_steps=1e999', 'data.train_batch_size=0x7fffffffffffffffffff', 'data.seed=-.inf'],
    },
    { name: 'a lone surrogate key and value', overrides: ['trainer.experiment_name=a\ud800b', 'trainer.\udfff=1'] },
    { name: 'a 4096-character key path', overrides: [`${'a.'.repeat(2047)}b=1`] },
  ];
}

/** Path segments that name prototype members, plus broken encodings, for routes with a `{param}`. */
export const HOSTILE_SEGMENTS = ['__proto__', 'constructor', 'hasOwnProperty', 'prototype', '%ED%A0%80', '%FF', '..%2F..%2Fetc%2Fpasswd'];

/** A query string that names prototype members, in the bracket forms other parsers expand. */
export const HOSTILE_QUERY =
  '__proto__=x&constructor=y&prototype=z&__proto__[polluted_by_hostile_input]=1&constructor[prototype][polluted_by_hostile_input]=1&toString=1&detail=__proto__&stream=constructor';

/** Request headers that name prototype members or carry hostile values (pairs: an object literal cannot hold a `__proto__` key). */
export const HOSTILE_HEADERS: Array<[string, string]> = [
  ['__proto__', 'x'],
  ['constructor', 'y'],
  ['prototype', 'z'],
  ['x-request-id', `__proto__${'x'.repeat(4096)}`],
  ['traceparent', '00-__proto__-constructor-01'],
];
