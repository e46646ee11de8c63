import { stat } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import type { Field } from '../data-type.ts';
import { runConversion, type ConversionReport, type RecordConverter } from '../convert-run.ts';
import { createGsm8kConverter, gsm8kFields, type Gsm8kFormat } from '../gsm8k.ts';
import { readJsonRecords } from '../json-records.ts';
import { createParquetWriter } from '../parquet-writer.ts';
import { createStoryConverter } from '../story-convert.ts';
import { STORY_FIELDS, type StoryOptions } from '../story.ts';
import { formatReport, formatStoryStats } from './rl-data-summary.ts';

/** Flags every convert command takes. */
export interface ConvertFlags {
  strict?: boolean;
  dryRun?: boolean;
  progress?: boolean;
}

// A bar on stderr, only for a person watching (a TTY) or when asked for.
async function progressBar(input: string, flags: ConvertFlags) {
  if (!process.stderr.isTTY && !flags.progress) return undefined;
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, noTTYOutput: true, format: 'converting [{bar}] {percentage}% | {records} records | {rows} rows', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  // A missing input is reported by the reader; the bar just starts empty.
  bar.start(
    await stat(input).then(
      (s) => s.size,
      () => 0,
    ),
    0,
    { records: 0, rows: 0 },
  );
  return bar;
}

/** Streams `input` through `converter` into `output` (or nowhere on a dry run) and prints the report. */
async function convertFile<Row>(
  input: string,
  output: string,
  fields: Field[],
  converter: RecordConverter<Row>,
  flags: ConvertFlags,
): Promise<ConversionReport> {
  const records = readJsonRecords(input);
  const bar = await progressBar(input, flags);
  const onRecord = (bytesRead: number, r: Readonly<ConversionReport>) => bar?.update(bytesRead, { records: r.records, rows: r.rows });
  const writer = flags.dryRun ? undefined : await createParquetWriter(output, fields);
  try {
    const report = await runConversion(records, converter, {
      strict: flags.strict ?? false,
      onRecord,
      ...(writer ? { write: (row: Row) => writer.write(row) } : {}),
    });
    await writer?.close();
    return report;
  } catch (err) {
    await writer?.abort();
    throw err;
  } finally {
    bar?.stop();
  }
}

/** `rl-data convert-story`: one verl sample per assistant reply. */
export async function convertStory(input: string, output: string, options: StoryOptions, flags: ConvertFlags): Promise<void> {
  const converter = createStoryConverter(options);
  const report = await convertFile(input, output, STORY_FIELDS, converter, flags);
  const lines = [...formatReport(report, 'samples', flags.dryRun ? undefined : output), ...formatStoryStats(converter.stats)];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `rl-data convert-gsm8k`: verl's GSM8K preprocessing. */
export async function convertGsm8k(input: string, output: string, split: string, format: Gsm8kFormat, flags: ConvertFlags): Promise<void> {
  const report = await convertFile(input, output, gsm8kFields(format), createGsm8kConverter(split, format), flags);
  process.stdout.write(`${formatReport(report, 'rows', flags.dryRun ? undefined : output).join('\n')}\n`);
}
