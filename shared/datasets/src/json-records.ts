import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { JsonArraySplitter } from './json-array-splitter.ts';

/** One input record: parsed, or the reason it could not be. */
export type RawRecord = { label: string; bytesRead: number } & ({ ok: true; value: unknown } | { ok: false; error: string });

/** A `.json` file is one document (an object or an array of records); anything else is JSONL. */
export const isJsonDocument = (path: string) => path.toLowerCase().endsWith('.json');

function parseRecord(text: string, label: string, bytesRead: number): RawRecord {
  try {
    return { label, bytesRead, ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { label, bytesRead, ok: false, error: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
}

async function* decodedChunks(path: string): AsyncGenerator<{ text: string; bytesRead: number }> {
  const decoder = new TextDecoder('utf-8');
  let bytesRead = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    bytesRead += (chunk as Buffer).length;
    yield { text: decoder.decode(chunk as Buffer, { stream: true }), bytesRead };
  }
  yield { text: decoder.decode(), bytesRead };
}

// JSONL: one record per non-blank line, labelled `line N` (1-based, as editors count).
async function* jsonlRecords(path: string): AsyncGenerator<RawRecord> {
  let carry = '';
  let line = 0;
  let bytes = 0;
  const emit = (text: string) => {
    line++;
    const trimmed = text.trim();
    return trimmed === '' ? undefined : parseRecord(trimmed, `line ${line}`, bytes);
  };
  for await (const { text, bytesRead } of decodedChunks(path)) {
    bytes = bytesRead;
    const parts = (carry + text).split('\n');
    carry = parts.pop() ?? '';
    for (const p of parts) {
      const r = emit(p);
      if (r) yield r;
    }
  }
  const last = emit(carry);
  if (last) yield last;
}

// A JSON document: an array is split element by element (`record N`, its 0-based index);
// an object is one record (`record 0`).
async function* documentRecords(path: string): AsyncGenerator<RawRecord> {
  const chunks = decodedChunks(path);
  const first = await chunks.next();
  const head = first.done ? '' : first.value.text;
  if (head.trimStart().startsWith('[')) {
    const splitter = new JsonArraySplitter();
    let index = 0;
    const feed = function* (text: string, bytesRead: number) {
      for (const el of splitter.push(text)) yield parseRecord(el, `record ${index++}`, bytesRead);
    };
    yield* feed(head, first.done ? 0 : first.value.bytesRead);
    for await (const { text, bytesRead } of chunks) yield* feed(text, bytesRead);
    splitter.end();
    return;
  }
  let text = head;
  let bytesRead = first.done ? 0 : first.value.bytesRead;
  for await (const c of chunks) {
    text += c.text;
    bytesRead = c.bytesRead;
  }
  const r = parseRecord(text, 'record 0', bytesRead);
  if (!r.ok) throw new AppError(ErrorCode.BadRequest, `${r.error}; a .json file holds one object or an array (one record per line is .jsonl)`);
  yield r;
}

/**
 * Streams the records of a JSONL or JSON file. A line or array element that is
 * not valid JSON comes back as `ok: false` so the caller can count and skip it;
 * a file that cannot be read at all throws.
 */
export async function* readJsonRecords(path: string): AsyncGenerator<RawRecord> {
  try {
    if (!(await stat(path)).isFile()) throw new Error('not a file');
  } catch (err) {
    throw new AppError(ErrorCode.NotFound, `${path}: no such file`, { cause: err });
  }
  try {
    yield* isJsonDocument(path) ? documentRecords(path) : jsonlRecords(path);
  } catch (err) {
    if (err instanceof AppError) throw new AppError(err.code, `${path}: ${err.message}`, { cause: err });
    throw err;
  }
}
