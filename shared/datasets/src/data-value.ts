import { setOwn } from '@rl/service-kit/core';

/** A decoded cell: what pyarrow's `to_pylist()` gives, in JS terms (a map column decodes to an object). */
export type DataValue = null | boolean | number | bigint | string | Uint8Array | Date | DataValue[] | { [key: string]: DataValue };

/** One row: column name to value. */
export type DataRow = { [column: string]: DataValue };

/**
 * Turns hyparquet's decoded values into plain JS values: int64 becomes a number
 * when it fits in 2^53 (row indices and counts always do; larger ones stay
 * bigint so nothing is silently rounded), a missing value becomes null.
 */
export function toDataValue(value: unknown): DataValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Uint8Array || value instanceof Date) return value;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Array.from(value as ArrayLike<unknown>, toDataValue);
  if (typeof value === 'object') {
    const out: { [key: string]: DataValue } = {};
    // A column or struct field named __proto__ stays data, not the object's prototype.
    for (const [k, v] of Object.entries(value)) setOwn(out, k, toDataValue(v));
    return out;
  }
  return String(value);
}

/** A short description of a value's JS type, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? `a string ${JSON.stringify(value.slice(0, 40))}…` : `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}
