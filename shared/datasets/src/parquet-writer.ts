import { open, rename, rm } from 'node:fs/promises';
import { ParquetWriter } from 'hyparquet-writer';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Field } from './data-type.ts';
import { FileSink } from './file-sink.ts';
import { parquetSchemaOf } from './parquet-schema.ts';
import { encodeRow } from './row-encode.ts';

/** Rows per row group: verl reads whole files, and 1000 keeps a group's memory small. */
export const DEFAULT_ROW_GROUP_ROWS = 1000;

/** Options of {@link createParquetWriter}. */
export interface ParquetWriterOptions {
  /** Rows buffered before a row group is encoded and written. @default 1000 */
  rowGroupRows?: number;
  /** Extra key/value metadata stored in the footer. */
  kvMetadata?: Array<{ key: string; value: string }>;
}

/** Writes rows to one parquet file, a row group at a time. */
export interface ParquetRowWriter {
  /** Validates and buffers one row; resolves once any full row group is on disk. */
  write(row: unknown): Promise<void>;
  /** Rows accepted so far. */
  readonly rowCount: number;
  /** Writes the last row group and the footer, then moves the file into place. */
  close(): Promise<{ rows: number }>;
  /** Drops the partial file; the target path is left untouched. */
  abort(): Promise<void>;
}

/**
 * Opens a streaming parquet writer for `fields` (nested lists and structs
 * included). The file is written beside the target under a temporary name
 * and renamed on `close()`, so a failed conversion never leaves a truncated
 * file that looks finished.
 */
export async function createParquetWriter(path: string, fields: readonly Field[], options: ParquetWriterOptions = {}): Promise<ParquetRowWriter> {
  const rowGroupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
  if (!Number.isInteger(rowGroupRows) || rowGroupRows < 1) {
    throw new AppError(ErrorCode.BadRequest, `rowGroupRows must be a positive integer, got ${rowGroupRows}`);
  }
  const schema = parquetSchemaOf(fields);
  const partial = `${path}.partial-${process.pid}`;
  const handle = await open(partial, 'w').catch((err: unknown) => {
    throw new AppError(ErrorCode.BadRequest, `${path}: cannot create the file (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  });
  const sink = new FileSink(handle);
  const writer = new ParquetWriter({
    writer: sink,
    schema,
    codec: 'SNAPPY',
    createdBy: 'rl-data (hyparquet-writer)',
    ...(options.kvMetadata ? { kvMetadata: options.kvMetadata } : {}),
  });
  // Column-major buffers: each row's values go straight into its columns, so a row is held once.
  let columns: unknown[][] = fields.map(() => []);
  let buffered = 0;
  let rowCount = 0;
  let state: 'open' | 'closed' | 'aborted' = 'open';

  const flushGroup = async () => {
    if (buffered === 0) return;
    const columnData = fields.map((f, j) => ({ name: f.name, data: columns[j]! }));
    columns = fields.map(() => []);
    const n = buffered;
    buffered = 0;
    await writer.write({ columnData, rowGroupSize: n });
  };
  const ensureOpen = () => {
    if (state !== 'open') throw new AppError(ErrorCode.BadRequest, `${path}: writer is ${state}`);
  };

  return {
    get rowCount() {
      return rowCount;
    },
    async write(row) {
      ensureOpen();
      const encoded = encodeRow(fields, row, `row ${rowCount}`);
      fields.forEach((f, j) => columns[j]!.push(encoded[f.name]));
      buffered++;
      rowCount++;
      if (buffered >= rowGroupRows) await flushGroup();
    },
    async close() {
      ensureOpen();
      state = 'closed';
      try {
        await flushGroup();
        await writer.finish();
        await rename(partial, path);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      return { rows: rowCount };
    },
    async abort() {
      if (state === 'aborted') return;
      state = 'aborted';
      await sink.finish().catch(() => undefined);
      await rm(partial, { force: true });
    },
  };
}
