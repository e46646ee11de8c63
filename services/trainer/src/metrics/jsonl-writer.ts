import { open, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { readMetricsJsonl } from './jsonl-reader.ts';
import type { MetricsLog } from '../core/controller/ports.ts';
import type { MetricsRecord } from './step-metrics.ts';

/** Options of {@link openMetricsLog}. */
export interface OpenMetricsLogOptions {
  /** On resume: drop records of later steps (they were logged after the checkpoint being resumed). */
  keepUpToStep?: number;
}

async function existing(path: string) {
  try {
    return await readMetricsJsonl(path);
  } catch (err) {
    if (err instanceof AppError && err.code === ErrorCode.NotFound) return undefined;
    throw err;
  }
}

const line = (r: MetricsRecord) => `${JSON.stringify(r)}\n`;

/**
 * Opens (or creates) a metrics JSONL file for appending. Each record is one
 * `write` of a whole line, so a crash can at worst leave a torn last line,
 * never a mixed one; on open, a torn tail and (on resume) the records after
 * `keepUpToStep` are dropped by rewriting the file beside it and renaming it
 * into place. No fsync: losing the last lines on power loss is acceptable for
 * metrics, as the resumed steps log them again.
 */
export async function openMetricsLog(path: string, options: OpenMetricsLogOptions = {}): Promise<MetricsLog> {
  const found = await existing(path);
  if (found !== undefined) {
    const keep = options.keepUpToStep === undefined ? found.records : found.records.filter((r) => r.step <= (options.keepUpToStep as number));
    if (found.tornTail || keep.length !== found.records.length) {
      const tmp = `${path}.rewrite-${process.pid}`;
      await writeFile(tmp, keep.map(line).join(''));
      await rename(tmp, path);
    }
  }
  const handle: FileHandle = await open(path, 'a');
  let tail: Promise<void> = Promise.resolve();
  let closed = false;
  return {
    path,
    append(record) {
      if (closed) return Promise.reject(new AppError(ErrorCode.Internal, `${path}: metrics log is closed`));
      const text = line(record);
      // Chained so lines keep call order; a failed write fails its own append only.
      const done = tail.catch(() => undefined).then(() => handle.appendFile(text));
      tail = done;
      return done;
    },
    async close() {
      if (closed) return;
      closed = true;
      await tail.catch(() => undefined);
      await handle.close();
    },
  };
}
