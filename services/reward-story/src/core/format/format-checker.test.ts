import { describe, expect, it } from 'vitest';
import type { OutputFormat } from '../story-item.ts';
import { expectAppError } from '@rl/service-kit/testing';
import { createFormatChecker } from './format-checker.ts';

const check = (spec: OutputFormat, reply: string) => createFormatChecker().compile(spec, 'context.output_format')(reply);

const compileError = (spec: OutputFormat) => expectAppError(() => createFormatChecker().compile(spec, 'extra_info.output_format'));

describe('regex output formats', () => {
  const action = { type: 'regex', pattern: String.raw`\*[^*]+\*.+` } as const;

  it('must match the whole reply', () => {
    expect(check(action, '*He nods.* Welcome.')).toBe(true);
    expect(check(action, 'Well. *He nods.* Welcome.')).toBe(false);
    expect(check({ type: 'regex', pattern: 'b' }, 'abc')).toBe(false);
  });

  it('honours the i, m and s flags (`.` stops at newlines without s)', () => {
    expect(check(action, '*He nods.*\nWelcome.')).toBe(false);
    expect(check({ ...action, flags: 's' }, '*He nods.*\nWelcome.')).toBe(true);
    expect(check({ type: 'regex', pattern: 'yes', flags: 'i' }, 'YES')).toBe(true);
  });

  it('rejects a pattern RE2 cannot run, naming the field', () => {
    for (const pattern of ['(unclosed', '(?=look)ahead', String.raw`(a)\1`]) {
      const err = compileError({ type: 'regex', pattern });
      expect(err.code).toBe('invalid_params');
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/^extra_info\.output_format\.pattern: /);
    }
  });

  it('runs a pattern that backtracks exponentially in JavaScript’s engine in linear time', () => {
    // /^(a+)+$/ on this input would not finish in a backtracking engine; the test would time out.
    expect(check({ type: 'regex', pattern: '(a+)+' }, `${'a'.repeat(100_000)}b`)).toBe(false);
  });
});

describe('JSON-schema output formats', () => {
  const line = {
    type: 'json_schema',
    schema: { type: 'object', required: ['action', 'speech'], properties: { action: { type: 'string' }, speech: { type: 'string', pattern: '^[A-Z]' } } },
  } as const;

  it('parses the trimmed reply as JSON and validates it', () => {
    expect(check(line, '  {"action": "nods", "speech": "Welcome."}\n')).toBe(true);
    expect(check(line, '{"action": "nods"}')).toBe(false);
    expect(check(line, '{"action": "nods", "speech": "welcome."}')).toBe(false);
    expect(check(line, 'He nods. {"action": "nods", "speech": "Welcome."}')).toBe(false);
    expect(check({ type: 'json_schema', schema: true }, 'not json')).toBe(false);
  });

  it('selects draft 2020-12 by $schema, draft-07 otherwise', () => {
    const tuple = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
    };
    expect(check({ type: 'json_schema', schema: tuple }, '["a", 1]')).toBe(true);
    expect(check({ type: 'json_schema', schema: tuple }, '["a", 1, 2]')).toBe(false);
  });

  it('rejects an invalid or unsafe schema, naming the field', () => {
    for (const schema of [{ type: 'strnig' }, { type: 'array', uniqueItems: true }, { $ref: '#/definitions/missing' }, { type: 'string', pattern: '(?=a)' }]) {
      const err = compileError({ type: 'json_schema', schema });
      expect(err.code).toBe('invalid_params');
      expect(err.message).toMatch(/^extra_info\.output_format\.schema: /);
    }
    expect(check({ type: 'json_schema', schema: { type: 'array', uniqueItems: true, maxItems: 3 } }, '[1, 2, 2]')).toBe(false);
  });

  it('counts a reply nested past the stack under a recursive schema as not obeying', () => {
    const nested = { type: 'json_schema', schema: { anyOf: [{ type: 'number' }, { type: 'array', items: { $ref: '#' } }] } } as const;
    expect(check(nested, '[[1, [2]], 3]')).toBe(true);
    expect(check(nested, `${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toBe(false);
  });

  it('compiles each distinct spec once', () => {
    const formats = createFormatChecker(2);
    const a = formats.compile(line, 'context.output_format');
    expect(formats.compile(structuredClone(line), 'context.output_format')).toBe(a);
  });
});
