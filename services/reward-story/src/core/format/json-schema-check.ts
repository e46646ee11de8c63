import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatCheck } from './regex-check.ts';
import { re2RegExpEngine } from './regex-check.ts';

/** Deepest schema nesting accepted (compiling is recursive). */
export const MAX_SCHEMA_DEPTH = 64;
/** Largest schema accepted, as JSON text. */
export const MAX_SCHEMA_CHARS = 65_536;

/** A schema this module refuses, with the JSON path of the offending part. */
export class UnsafeSchemaError extends Error {
  override readonly name = 'UnsafeSchemaError';
}

/**
 * Refuses schemas whose validation could take more than linear time on a
 * hostile reply: `uniqueItems` without `maxItems` compares every pair of items
 * (quadratic). `pattern` needs no such bound here because it runs on RE2. Also
 * bounds the nesting, since compiling recurses.
 */
function assertSafe(node: unknown, path: string, depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH) throw new UnsafeSchemaError(`${path}: nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((v, i) => assertSafe(v, `${path}[${i}]`, depth + 1));
    return;
  }
  const o = node as Record<string, unknown>;
  if (o.uniqueItems === true && typeof o.maxItems !== 'number') {
    throw new UnsafeSchemaError(`${path}: uniqueItems needs maxItems (checking uniqueness of an unbounded array is quadratic)`);
  }
  for (const [k, v] of Object.entries(o)) assertSafe(v, `${path}.${k}`, depth + 1);
}

function ajvFor(schema: object | boolean): Ajv {
  const options: Options = {
    // Unknown keywords (vendor extensions in datasets) are ignored, as most validators do.
    strict: false,
    // `format` needs per-format regexes of its own; it is not checked (documented in the README).
    validateFormats: false,
    logger: false,
    code: { regExp: re2RegExpEngine() },
  };
  const draft = typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  // One Ajv per schema: nothing leaks between cached schemas (`$id` clashes, growing internal caches).
  return typeof draft === 'string' && draft.includes('2020-12') ? new Ajv2020(options) : new Ajv(options);
}

/**
 * Compiles a JSON Schema check: the reply, trimmed, must parse as JSON and
 * satisfy the schema. Throws {@link UnsafeSchemaError} or Ajv's compile error
 * for a schema it cannot use.
 */
export function compileJsonSchemaCheck(schema: Record<string, unknown> | boolean): FormatCheck {
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) throw new UnsafeSchemaError(`schema: larger than ${MAX_SCHEMA_CHARS} characters of JSON`);
  assertSafe(schema, 'schema', 0);
  const validate = ajvFor(schema).compile(schema);
  return function satisfiesSchema(reply) {
    let data: unknown;
    try {
      data = JSON.parse(reply.trim());
    } catch {
      return false;
    }
    try {
      return validate(data) === true;
    } catch (err) {
      // A recursive schema over absurdly nested data overflows the stack: such a reply obeys no sane format.
      if (err instanceof RangeError) return false;
      throw err;
    }
  };
}
