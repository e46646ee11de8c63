import { readFile } from 'node:fs/promises';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { MetricsRecord } from './step-metrics.ts';

/** What {@link parseMetricsJsonl} found. */
export interface MetricsFile {
  records: MetricsRecord[];
  /** True when the file ended in a partial line (a crash mid-write), which was ignored. */
  tornTail: boolean;
}

const isRecord = (v: unknown): v is MetricsRecord =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { step?: unknown }).step === 'number';

/**
 * Parses metrics JSONL. A last line without its newline (torn by a crash) is
 * ignored; any other bad line is an error naming its line number.
 */
export function parseMetricsJsonl(text: string, source = 'metrics.jsonl'): MetricsFile {
  const records: MetricsRecord[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    lineNo++;
    if (end < 0) return { records, tornTail: true };
    const line = text.slice(offset, end);
    offset = end + 1;
    if (line.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      if (!isRecord(parsed)) {
        throw new AppError(ErrorCode.BadRequest, `${source} line ${lineNo}: not a metrics record (JSON object with a numeric "step")`);
      }
      records.push(parsed);
    }
  }
  return { records, tornTail: false };
}

/** Reads a metrics JSONL file; a missing file is `not_found`. */
export async function readMetricsJsonl(path: string): Promise<MetricsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AppError(ErrorCode.NotFound, `${path}: no metrics file`, { cause: err });
  }
  return parseMetricsJsonl(text, path);
}
