import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { MAX_LISTED_SKIPS, runConversion, type RecordConverter } from './convert-run.ts';
import type { RawRecord } from './json-records.ts';

async function* records(values: Array<unknown | Error>): AsyncGenerator<RawRecord> {
  let i = 0;
  for (const v of values) {
    const label = `line ${++i}`;
    yield v instanceof Error ? { label, bytesRead: i, ok: false, error: v.message } : { label, bytesRead: i, ok: true, value: v };
  }
}

// Doubles numbers; anything else is a broken record.
const doubler: RecordConverter<{ n: number; index: number; record: number }> = {
  convert(value, label, recordIndex, firstRowIndex) {
    if (typeof value !== 'number') throw new AppError(ErrorCode.ValidationFailed, `${label}: n: expected a number`);
    return [
      { n: value, index: firstRowIndex, record: recordIndex },
      { n: value * 2, index: firstRowIndex + 1, record: recordIndex },
    ];
  },
};

describe('runConversion', () => {
  it('writes rows in order, numbering rows across records and records across the input', async () => {
    const written: unknown[] = [];
    const progress: number[] = [];
    const report = await runConversion(records([1, 'x', new Error('not valid JSON'), 3]), doubler, {
      write: async (row) => void written.push(row),
      onRecord: (bytes) => progress.push(bytes),
    });
    expect(written).toEqual([
      { n: 1, index: 0, record: 0 },
      { n: 2, index: 1, record: 0 },
      { n: 3, index: 2, record: 3 },
      { n: 6, index: 3, record: 3 },
    ]);
    expect(report).toEqual({
      records: 4,
      rows: 4,
      skipped: 2,
      skippedList: [
        { label: 'line 2', reason: 'n: expected a number' },
        { label: 'line 3', reason: 'not valid JSON' },
      ],
    });
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('counts rows without writing on a dry run', async () => {
    expect(await runConversion(records([1, 2]), doubler)).toMatchObject({ records: 2, rows: 4, skipped: 0 });
  });

  it('makes the first broken record fatal with strict', async () => {
    await expect(runConversion(records([1, new Error('not valid JSON'), 'x']), doubler, { strict: true })).rejects.toMatchObject({
      code: 'validation_failed',
      message: 'line 2: not valid JSON',
    });
  });

  it('lets errors other than a broken record stop the run', async () => {
    const failing: RecordConverter<never> = {
      convert: () => {
        throw new TypeError('bug');
      },
    };
    await expect(runConversion(records([1]), failing)).rejects.toThrow(TypeError);
    const diskFull = () => Promise.reject(new AppError(ErrorCode.Internal, 'disk full'));
    await expect(runConversion(records([1]), doubler, { write: diskFull })).rejects.toMatchObject({ code: 'internal' });
  });

  it('lists the first skipped records by name and counts the rest', async () => {
    const report = await runConversion(records(Array.from({ length: MAX_LISTED_SKIPS + 5 }, () => 'x')), doubler);
    expect(report.skipped).toBe(MAX_LISTED_SKIPS + 5);
    expect(report.skippedList).toHaveLength(MAX_LISTED_SKIPS);
  });
});
