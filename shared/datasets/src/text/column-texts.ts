// The text of chosen columns of parquet rows, for training a tokenizer: a
// dotted path follows struct members (`extra_info.answer`), a list of chat
// messages yields each message's content.
import type { DataValue } from '../data-value.ts';

/** Every string under `path` in `row` (messages give their contents). */
export function textsAt(row: DataValue, path: readonly string[]): string[] {
  let v: DataValue | undefined = row;
  for (const key of path) {
    if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array || v instanceof Date) return [];
    v = (v as Record<string, DataValue>)[key];
  }
  return collect(v);
}

function collect(v: DataValue | undefined): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(collect);
  if (v !== null && v !== undefined && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Date)) {
    const content = (v as Record<string, DataValue>)['content'];
    return typeof content === 'string' ? [content] : [];
  }
  return [];
}
