// The override writer and the config loader against prototype pollution, run
// in-process so Object.prototype itself can be checked after every vector.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit';
import { expectAppError } from '@rl/service-kit/testing';
import { parseRlJobConfig, validateRlJobConfig } from './index.ts';
import { applyOverrides, parseOverrides } from './overrides.ts';

const MINIMAL = 'data:\n  train_files: train.parquet\n';
let prototypeNames: string[];

beforeAll(() => {
  prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
});

afterEach(() => {
  // Every vector must leave the process's Object.prototype exactly as it was.
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
});

describe('overrides never reach a prototype', () => {
  it.each([
    ['trainer.__proto__.polluted=1', '__proto__', 'trainer.__proto__'],
    ['__proto__.polluted=1', '__proto__', '__proto__'],
    ['+__proto__.polluted=1', '__proto__', '__proto__'],
    ['++data.__proto__.polluted=1', '__proto__', 'data.__proto__'],
    ['~trainer.__proto__.toString', '__proto__', 'trainer.__proto__'],
    ['constructor.prototype.polluted=1', 'constructor', 'constructor'],
    ['data.constructor.prototype.polluted=1', 'constructor', 'data.constructor'],
    ['trainer.prototype=1', 'prototype', 'trainer.prototype'],
  ])('refuses %s with a 400 naming the key', (text, key, at) => {
    const err = expectAppError(() => parseRlJobConfig(MINIMAL, { overrides: [text] }), ErrorCode.ValidationFailed);
    expect(err.status).toBe(400);
    expect(err.message).toContain(`key "${key}" (at ${at}) is not allowed in a config path`);
  });

  it('reports a prototype key alongside the other bad overrides', () => {
    const err = expectAppError(() => parseOverrides(['a.__proto__.b=1', 'x']), ErrorCode.ValidationFailed);
    expect(err.details?.['problems']).toEqual([
      'a.__proto__.b=1: key "__proto__" (at a.__proto__) is not allowed in a config path',
      'x: expected key.path=value',
    ]);
  });

  it('reads and writes own properties only when applying parsed overrides', () => {
    // Parsed overrides are plain data; a caller that builds one by hand still cannot walk into a prototype.
    const merged = applyOverrides({}, [{ path: ['trainer', 'toString', 'x'], op: 'set', value: 1, text: 'trainer.toString.x=1' }]);
    expect(merged).toEqual({ trainer: { toString: { x: 1 } } });
    const own = applyOverrides({}, [{ path: ['__proto__', 'polluted'], op: 'set', value: 1, text: '__proto__.polluted=1' }]);
    expect(Object.getPrototypeOf(own)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(own, '__proto__')?.value).toEqual({ polluted: 1 });
  });

  it('deletes only own keys', () => {
    const merged = applyOverrides({ data: {} }, parseOverrides(['~data.hasOwnProperty', '~data.toString.x']));
    expect(merged).toEqual({ data: {} });
    expect(typeof Object.prototype.hasOwnProperty).toBe('function');
  });
});

describe('configs never carry prototype keys', () => {
  it.each([
    ['a JSON body key', JSON.parse('{"data": {"train_files": "t.parquet"}, "trainer": {"__proto__": {"polluted": 1}}}'), 'trainer.__proto__'],
    [
      'a nested JSON key',
      JSON.parse('{"data": {"train_files": "t.parquet"}, "reward": {"params": {"gsm8k": {"constructor": {"prototype": 1}}}}}'),
      'reward.params.gsm8k.constructor',
    ],
    ['a key inside a list', JSON.parse('{"data": {"train_files": ["t.parquet", {"prototype": 1}]}}'), 'data.train_files[1].prototype'],
  ])('refuses %s with a 400 naming its path', (_, raw, path) => {
    const err = expectAppError(() => validateRlJobConfig(raw), ErrorCode.ValidationFailed);
    expect(err.details?.['problems']).toEqual([{ path, message: '"__proto__", "constructor" and "prototype" are not allowed as config keys' }]);
  });

  it('refuses prototype keys in YAML text and in YAML override values', () => {
    const yaml = expectAppError(() => parseRlJobConfig(`${MINIMAL}__proto__:\n  polluted: 1\n`), ErrorCode.ValidationFailed);
    expect(yaml.message).toContain('__proto__: "__proto__", "constructor" and "prototype" are not allowed as config keys');
    const value = expectAppError(() => parseRlJobConfig(MINIMAL, { overrides: ['reward.params={__proto__: {polluted: 1}}'] }), ErrorCode.ValidationFailed);
    expect(value.message).toContain('reward.params.__proto__:');
  });

  it('treats YAML merge keys as plain keys (YAML 1.2), so they cannot splice in a prototype', () => {
    const err = expectAppError(() => parseRlJobConfig(`${MINIMAL}trainer:\n  <<: {__proto__: {polluted: 1}}\n`), ErrorCode.ValidationFailed);
    expect(err.message).toContain('trainer.<<');
  });

  it('refuses alias bombs and hostile nesting as unreadable YAML (400), not a crash', () => {
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `l${i}: &l${i} [${Array(10)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(', ')}]`,
      );
    const bomb = expectAppError(() => parseRlJobConfig(laughs.join('\n')), ErrorCode.BadRequest);
    expect(bomb.message).toMatch(/job config is not valid YAML: .*alias count/i);
    const deep = expectAppError(() => parseRlJobConfig(`data: ${'['.repeat(5_000)}${']'.repeat(5_000)}`), ErrorCode.BadRequest);
    expect(deep.message).toContain('job config is not valid YAML');
    expect(deep).toBeInstanceOf(AppError);
  });
});

describe('override values', () => {
  it('refuses YAML the parser only warns about (an unknown tag) instead of printing the warning', () => {
    const err = expectAppError(() => parseOverrides(['trainer.x=!!js/function "return 1"']), ErrorCode.ValidationFailed);
    expect(err.message).toMatch(/trainer\.x=!!js\/function "return 1": value is not valid YAML \(.*tag/i);
  });

  it('still types plain scalars, lists and mappings the Hydra way', () => {
    expect(parseOverrides(['a=8', 'b=true', 'c=[x, y]', 'd="8"', 'e=', 'f={g: 1}']).map((o) => o.value)).toEqual([8, true, ['x', 'y'], '8', null, { g: 1 }]);
  });
});
