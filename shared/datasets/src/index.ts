export { formatDataType, fieldsOf, listOf, scalar, structOf, type DataType, type Field, type ScalarKind } from './data-type.ts';
export { toDataValue, type DataRow, type DataValue } from './data-value.ts';
export { openParquetFile, readParquetRows, type ParquetFile, type ReadRowsOptions, type RowRange } from './parquet-reader.ts';
export { createParquetWriter, DEFAULT_ROW_GROUP_ROWS, type ParquetRowWriter, type ParquetWriterOptions } from './parquet-writer.ts';
export { fieldsFromParquet, parquetSchemaOf } from './parquet-schema.ts';
export { MESSAGE, MESSAGE_LIST, REWARD_MODEL, type Message } from './verl-fields.ts';
export { readJsonRecords, isJsonDocument, type RawRecord } from './json-records.ts';
export { runConversion, MAX_LISTED_SKIPS, type ConversionOptions, type ConversionReport, type RecordConverter, type SkippedRecord } from './convert-run.ts';
export { parseStoryRecord, type StoryNotes, type StoryRecord, type StoryRole, type StoryTurn } from './story-record.ts';
export { buildSystemPrompt, DEFAULT_STORY_OPTIONS, STORY_FIELDS, StoryContextPart, storySamples, type StoryOptions, type StorySample } from './story.ts';
export { createStoryConverter, type StoryConverter, type StoryStats } from './story-convert.ts';
export {
  createGsm8kConverter,
  extractGsm8kSolution,
  GSM8K_DATA_SOURCE,
  Gsm8kFormat,
  gsm8kFields,
  gsm8kRow,
  parseGsm8kRecord,
  type Gsm8kRaw,
  type Gsm8kRow,
} from './gsm8k.ts';
export {
  AnswerStyle,
  DEFAULT_PROBLEM_OPTIONS,
  formatSolution,
  generateProblem,
  synthGsm8kRows,
  type ProblemOptions,
  type SynthOptions,
  type WordProblem,
} from './word-problems/index.ts';
