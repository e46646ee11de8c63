import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { DataType, Field } from './data-type.ts';
import { describeValue } from './data-value.ts';

const invalid = (where: string, message: string) => new AppError(ErrorCode.ValidationFailed, `${where}: ${message}`);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function encodeScalar(kind: string, value: unknown, where: string): unknown {
  switch (kind) {
    case 'string':
      if (typeof value === 'string') return value;
      break;
    case 'bool':
      if (typeof value === 'boolean') return value;
      break;
    case 'int32':
      if (Number.isInteger(value) && Math.abs(value as number) <= 2 ** 31 - 1) return value;
      break;
    case 'int64':
      if (typeof value === 'bigint') return value;
      if (Number.isSafeInteger(value)) return BigInt(value as number);
      break;
    case 'float':
    case 'double':
      if (typeof value === 'number') return value;
      break;
    case 'binary':
      if (value instanceof Uint8Array) return value;
      break;
    case 'json':
      return value;
  }
  throw invalid(where, `expected ${kind}, got ${describeValue(value)}`);
}

/** Checks one value against its type and converts it to what hyparquet-writer encodes (int64 as bigint). */
function encodeValue(type: DataType, nullable: boolean, value: unknown, where: string): unknown {
  if (value === null || value === undefined) {
    if (nullable) return null;
    throw invalid(where, 'required, got nothing');
  }
  switch (type.kind) {
    case 'list':
      if (!Array.isArray(value)) throw invalid(where, `expected a list, got ${describeValue(value)}`);
      return value.map((v, i) => encodeValue(type.element, type.elementNullable, v, `${where}[${i}]`));
    case 'struct': {
      if (!isPlainObject(value)) throw invalid(where, `expected an object, got ${describeValue(value)}`);
      const known = new Set(type.fields.map((f) => f.name));
      const extra = Object.keys(value).find((k) => !known.has(k));
      // An unknown member would be dropped silently otherwise; the schema has to name it.
      if (extra !== undefined) throw invalid(`${where}.${extra}`, 'not in the schema');
      const out: Record<string, unknown> = {};
      for (const f of type.fields) out[f.name] = encodeValue(f.type, f.nullable ?? true, value[f.name], `${where}.${f.name}`);
      return out;
    }
    case 'map':
    case 'other':
      throw invalid(where, `cannot write ${type.kind} values`);
    default:
      return encodeScalar(type.kind, value, where);
  }
}

/**
 * Validates a row against the columns and returns it in the writer's encoding.
 * Errors name the row and the field path, e.g. `row 5: extra_info.index: expected int64, got the string "x"`.
 */
export function encodeRow(fields: readonly Field[], row: unknown, rowLabel: string): Record<string, unknown> {
  if (!isPlainObject(row)) throw invalid(rowLabel, `expected an object, got ${describeValue(row)}`);
  const known = new Set(fields.map((f) => f.name));
  const extra = Object.keys(row).find((k) => !known.has(k));
  if (extra !== undefined) throw invalid(`${rowLabel}: ${extra}`, 'not a column of the schema');
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.name] = encodeValue(f.type, f.nullable ?? true, row[f.name], `${rowLabel}: ${f.name}`);
  return out;
}
