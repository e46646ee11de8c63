import { stat } from 'node:fs/promises';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Field } from './data-type.ts';
import { toDataValue, type DataRow } from './data-value.ts';
import { fieldsFromParquet } from './parquet-schema.ts';

/** A half-open range of row positions, `[rowStart, rowEnd)`. */
export interface RowRange {
  rowStart: number;
  rowEnd: number;
}

/** Which part of a file to read. */
export interface ReadRowsOptions {
  /** Top-level columns to decode; all when omitted. */
  columns?: readonly string[];
  /** First row, 0-based. @default 0 */
  rowStart?: number;
  /** One past the last row; clamped to the row count. @default the row count */
  rowEnd?: number;
}

/** An opened parquet file: its shape, and row reads that decode only what is asked. */
export interface ParquetFile {
  readonly path: string;
  readonly numRows: number;
  readonly fields: Field[];
  /** Row ranges of the row groups, in file order; the cheapest units to read. */
  readonly rowGroups: RowRange[];
  readonly createdBy: string | undefined;
  readRows(options?: ReadRowsOptions): Promise<DataRow[]>;
  /** Rows one row group at a time, so memory holds one group, not the file. */
  batches(options?: Pick<ReadRowsOptions, 'columns'>): AsyncGenerator<{ rowStart: number; rows: DataRow[] }>;
}

const badFile = (path: string, why: string, cause?: unknown) =>
  new AppError(ErrorCode.BadRequest, `${path}: ${why}`, { ...(cause === undefined ? {} : { cause }) });

async function openBuffer(path: string): Promise<AsyncBuffer> {
  try {
    if (!(await stat(path)).isFile()) throw badFile(path, 'not a file');
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(ErrorCode.NotFound, `${path}: no such file`, { cause: err });
  }
  return asyncBufferFromFile(path);
}

function rowGroupRanges(metadata: FileMetaData): RowRange[] {
  let start = 0;
  return metadata.row_groups.map((g) => {
    const range = { rowStart: start, rowEnd: start + Number(g.num_rows) };
    start = range.rowEnd;
    return range;
  });
}

function checkColumns(path: string, fields: Field[], columns: readonly string[] | undefined): string[] | undefined {
  if (columns === undefined) return undefined;
  const known = new Set(fields.map((f) => f.name));
  const unknown = columns.filter((c) => !known.has(c));
  if (unknown.length > 0) throw badFile(path, `no column ${unknown.join(', ')} (columns: ${[...known].join(', ')})`);
  return [...columns];
}

function checkRange(path: string, numRows: number, o: ReadRowsOptions): RowRange {
  const rowStart = o.rowStart ?? 0;
  const rowEnd = Math.min(o.rowEnd ?? numRows, numRows);
  if (!Number.isInteger(rowStart) || rowStart < 0) throw badFile(path, `rowStart must be a non-negative integer, got ${rowStart}`);
  if (!Number.isInteger(rowEnd) || rowEnd < rowStart) throw badFile(path, `rowEnd must be an integer >= rowStart, got ${o.rowEnd}`);
  return { rowStart, rowEnd };
}

/** Opens a parquet file (any codec hyparquet-compressors knows: snappy, zstd, gzip, brotli, lz4). */
export async function openParquetFile(path: string): Promise<ParquetFile> {
  const file = await openBuffer(path);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (err) {
    throw badFile(path, `not a readable parquet file (${err instanceof Error ? err.message : String(err)})`, err);
  }
  const fields = fieldsFromParquet(parquetSchema(metadata));
  const numRows = Number(metadata.num_rows);
  const read = async (columns: string[] | undefined, range: RowRange): Promise<DataRow[]> => {
    if (range.rowEnd <= range.rowStart) return [];
    try {
      // utf8: false keeps unannotated BYTE_ARRAY as bytes, as pyarrow does; annotated strings still decode.
      const rows = await parquetReadObjects({ file, metadata, compressors, utf8: false, ...range, ...(columns === undefined ? {} : { columns }) });
      return rows.map((r) => toDataValue(r) as DataRow);
    } catch (err) {
      throw badFile(path, `cannot decode rows ${range.rowStart}..${range.rowEnd} (${err instanceof Error ? err.message : String(err)})`, err);
    }
  };
  const rowGroups = rowGroupRanges(metadata);
  return {
    path,
    numRows,
    fields,
    rowGroups,
    createdBy: metadata.created_by,
    readRows: (o = {}) => read(checkColumns(path, fields, o.columns), checkRange(path, numRows, o)),
    async *batches(o = {}) {
      const columns = checkColumns(path, fields, o.columns);
      for (const range of rowGroups) yield { rowStart: range.rowStart, rows: await read(columns, range) };
    },
  };
}

/** Reads rows `[rowStart, rowEnd)` of a file with its row count and columns: the one-call form of {@link openParquetFile}. */
export async function readParquetRows(path: string, options: ReadRowsOptions = {}): Promise<{ numRows: number; fields: Field[]; rows: DataRow[] }> {
  const file = await openParquetFile(path);
  return { numRows: file.numRows, fields: file.fields, rows: await file.readRows(options) };
}
