import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { createParquetWriter, fieldsOf, scalar } from '@rl/datasets';
import { loadDataset } from './load-dataset.ts';
import { FIXTURES_DIR, tempDir, writeChatFile } from './testing/test-files.ts';

const ARITH = join(FIXTURES_DIR, 'verl_arithmetic_sequence_train.parquet');
const GSM8K = join(FIXTURES_DIR, 'verl_gsm8k_test.parquet');
let tmp: ReturnType<typeof tempDir>;
let fileA: string;
let fileB: string;

beforeAll(async () => {
  tmp = tempDir('trainer-data-');
  fileA = await writeChatFile(join(tmp.dir, 'a.parquet'), 'a', 10);
  fileB = await writeChatFile(join(tmp.dir, 'b.parquet'), 'b', 6);
});
afterAll(() => tmp.cleanup());

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).code;
}

describe('loadDataset', () => {
  it('reads verl chat rows with the fields RLHFDataset exposes', async () => {
    const ds = await loadDataset({ files: [GSM8K], maxSamples: 2 });
    const row = ds.rows[0];
    expect(ds.rows).toHaveLength(2);
    expect(row).toMatchObject({
      row_id: 0,
      file_index: 0,
      data_source: 'openai/gsm8k',
      agent_name: 'tool_agent',
      ability: 'math',
      ground_truth: '18',
      index: 0,
    });
    expect(Array.isArray(row?.prompt) && row.prompt.map((m) => m.role)).toEqual(['system', 'user']);
    expect(row?.tools_kwargs).toHaveProperty('calc_gsm8k_reward');
    expect(row?.interaction_kwargs).toMatchObject({ ground_truth: '18' });
    expect(row?.reward_model).toEqual({ ground_truth: '18', style: 'rule' });
  });

  it('reads plain-string prompts, defaulting data_source and using the prompt as ground truth', async () => {
    const ds = await loadDataset({ files: [ARITH], defaultDataSource: 'arithmetic_sequence' });
    expect(ds.rows).toHaveLength(800);
    expect(ds.rows[0]).toMatchObject({ data_source: 'arithmetic_sequence', prompt: '6,2:9,6', ground_truth: '6,2:9,6', extra_info: {}, index: 0 });
  });

  it('refuses rows without data_source when no default is configured, naming file, row and field', async () => {
    await expect(loadDataset({ files: [ARITH] })).rejects.toThrow(
      /verl_arithmetic_sequence_train\.parquet row 0: data_source is missing; set data\.default_data_source/,
    );
  });

  it('concatenates files in order with contiguous per-file runs', async () => {
    const ds = await loadDataset({ files: [fileA, fileB] });
    expect(ds.fileSizes).toEqual([10, 6]);
    expect(ds.rows.map((r) => r.row_id)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(ds.rows[10]).toMatchObject({ file_index: 1, data_source: 'src_b', ground_truth: '0' });
  });

  it('filters overlong prompts with the injected token counter (<= max is kept; a throwing counter drops the row)', async () => {
    const userLength = (p: unknown) => (Array.isArray(p) ? String((p[1] as { content: string }).content).length : 0);
    const ds = await loadDataset({
      files: [fileA, fileB],
      filter: {
        maxPromptLength: 5,
        countTokens: (p) => {
          const n = userLength(p);
          if (n === 4) throw new Error('tokenizer failure');
          return n;
        },
      },
    });
    // user text is q<tag><i> + i x's: length 3 + i for i < 10; i = 1 (length 4) throws, i = 3.. are too long.
    expect(ds.rows.map((r) => r.row_id)).toEqual([0, 2, 10, 12]);
    expect(ds.fileSizes).toEqual([2, 2]);
    expect(ds.filteredOverlong).toBe(12);
    expect(ds.files).toEqual([
      { path: fileA, rows: 10, kept: 2 },
      { path: fileB, rows: 6, kept: 2 },
    ]);
  });

  it('fails on a configuration error of the token counter instead of dropping every row', async () => {
    const noTemplate = () => {
      throw new AppError(ErrorCode.InvalidConfig, 'the tokenizer has no chat template');
    };
    await expect(loadDataset({ files: [fileA], filter: { maxPromptLength: 5, countTokens: noTemplate } })).rejects.toThrow('no chat template');
  });

  it('subsamples with maxSamples: the first rows, or a seeded random subset', async () => {
    const first = await loadDataset({ files: [fileA, fileB], maxSamples: 3 });
    expect(first.rows.map((r) => r.row_id)).toEqual([0, 1, 2]);
    const r1 = await loadDataset({ files: [fileA, fileB], maxSamples: 5, sampleRandomly: true, seed: 7 });
    const r2 = await loadDataset({ files: [fileA, fileB], maxSamples: 5, sampleRandomly: true, seed: 7 });
    const r3 = await loadDataset({ files: [fileA, fileB], maxSamples: 5, sampleRandomly: true, seed: 8 });
    const ids = (d: typeof r1) => d.rows.map((r) => r.row_id);
    expect(ids(r1)).toEqual(ids(r2));
    expect(ids(r1)).not.toEqual(ids(r3));
    expect(ids(r1)).toEqual([...ids(r1)].sort((a, b) => a - b));
    expect(r1.fileSizes.reduce((a, b) => a + b)).toBe(5);
  });

  it('reports missing files, a missing prompt column and malformed prompts clearly', async () => {
    expect(await codeOf(loadDataset({ files: [join(tmp.dir, 'nope.parquet')] }))).toBe(ErrorCode.NotFound);
    await expect(loadDataset({ files: [fileA], promptKey: 'question' })).rejects.toThrow(
      /no prompt column "question" \(columns: data_source, agent_name, prompt/,
    );
    const badPath = join(tmp.dir, 'bad.parquet');
    const w = await createParquetWriter(badPath, fieldsOf({ prompt: scalar('int64'), data_source: scalar('string') }));
    await w.write({ prompt: 5, data_source: 'x' });
    await w.close();
    await expect(loadDataset({ files: [badPath] })).rejects.toThrow(
      /bad\.parquet row 0: prompt must be a string or a non-empty list of \{role, content\} messages/,
    );
  });
});
