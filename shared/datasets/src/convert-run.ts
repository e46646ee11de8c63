import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { RawRecord } from './json-records.ts';

/** Turns one raw record into output rows; throws a `validation_failed` AppError for a broken record. */
export interface RecordConverter<Row> {
  /**
   * @param recordIndex 0-based position of the record in the input, broken ones included
   * @param firstRowIndex index the first row of this record gets (rows are numbered across the file)
   */
  convert(value: unknown, label: string, recordIndex: number, firstRowIndex: number): Row[];
}

/** A skipped record and why. */
export interface SkippedRecord {
  label: string;
  reason: string;
}

/** What a conversion did. */
export interface ConversionReport {
  records: number;
  rows: number;
  skipped: number;
  /** The first {@link MAX_LISTED_SKIPS} skipped records; `skipped` counts them all. */
  skippedList: SkippedRecord[];
}

/** Skipped records listed by name in a report; past this only the count grows. */
export const MAX_LISTED_SKIPS = 100;

/** Options of {@link runConversion}. */
export interface ConversionOptions<Row> {
  /** Receives every row in order; omit for a dry run. */
  write?: (row: Row) => Promise<void>;
  /** Make the first broken record fatal instead of skipping it. @default false */
  strict?: boolean;
  /** Called after each record with the input bytes consumed so far. */
  onRecord?: (bytesRead: number, report: Readonly<ConversionReport>) => void;
}

/**
 * Drives records through a converter into a sink. Broken records (bad JSON or
 * a `validation_failed` from the converter) are skipped and reported, or fatal
 * with `strict`; any other error (I/O, a bug) stops the run.
 */
export async function runConversion<Row>(
  records: AsyncIterable<RawRecord>,
  converter: RecordConverter<Row>,
  options: ConversionOptions<Row> = {},
): Promise<ConversionReport> {
  const report: ConversionReport = { records: 0, rows: 0, skipped: 0, skippedList: [] };
  const skip = (label: string, message: string) => {
    // Converter messages start with the label already; keep the reason alone.
    const reason = message.startsWith(`${label}: `) ? message.slice(label.length + 2) : message;
    if (options.strict) throw new AppError(ErrorCode.ValidationFailed, `${label}: ${reason}`);
    report.skipped++;
    if (report.skippedList.length < MAX_LISTED_SKIPS) report.skippedList.push({ label, reason });
  };
  for await (const record of records) {
    const recordIndex = report.records++;
    if (!record.ok) skip(record.label, record.error);
    else {
      let rows: Row[] | undefined;
      try {
        rows = converter.convert(record.value, record.label, recordIndex, report.rows);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== ErrorCode.ValidationFailed) throw err;
        skip(record.label, err.message);
      }
      for (const row of rows ?? []) {
        await options.write?.(row);
        report.rows++;
      }
    }
    options.onRecord?.(record.bytesRead, report);
  }
  return report;
}
