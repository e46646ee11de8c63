import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { AppError, ErrorCode, validationError, ScoreItem } from '@rl/service-kit';

/** Reads and validates a JSONL file of score items; errors name the line and the field. */
export async function* readItems(path: string): AsyncGenerator<ScoreItem> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new AppError(ErrorCode.BadRequest, `${path}:${n}: not valid JSON`);
    }
    const parsed = ScoreItem.safeParse(value);
    if (!parsed.success) throw new AppError(ErrorCode.ValidationFailed, `${path}:${n}: ${validationError(parsed.error, 'item').message}`);
    yield parsed.data;
  }
}

/** Groups an async stream into arrays of at most `size`. */
export async function* batches<T>(source: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let buf: T[] = [];
  for await (const x of source) {
    buf.push(x);
    if (buf.length >= size) {
      yield buf;
      buf = [];
    }
  }
  if (buf.length > 0) yield buf;
}
