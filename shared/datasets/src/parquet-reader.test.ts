import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDataType } from './data-type.ts';
import { openParquetFile, readParquetRows } from './parquet-reader.ts';
import { fixture, tempDir } from './testing/fixtures.ts';

const tmp = tempDir('rl-reader-');
afterAll(tmp.cleanup);

const GSM8K = fixture('verl_gsm8k_test.parquet');

describe('readParquetRows on verl fixtures', () => {
  it('reads the arithmetic-sequence splits: one string column, every row', async () => {
    const train = await readParquetRows(fixture('verl_arithmetic_sequence_train.parquet'));
    expect(train.numRows).toBe(800);
    expect(train.rows).toHaveLength(800);
    expect(train.fields).toEqual([{ name: 'prompt', type: { kind: 'string' }, nullable: true }]);
    expect([train.rows[0], train.rows[1], train.rows[799]]).toEqual([{ prompt: '6,2:9,6' }, { prompt: '0,3:9,3' }, { prompt: '6,1:9,8' }]);
    const test = await readParquetRows(fixture('verl_arithmetic_sequence_test.parquet'));
    expect(test.rows).toHaveLength(200);
    expect([test.rows[0], test.rows[199]]).toEqual([{ prompt: '0,8:9,7' }, { prompt: '3,4:9,7' }]);
  });

  it('decodes the GSM8K tool-agent file with its nested structs and lists', async () => {
    const { numRows, rows, fields } = await readParquetRows(GSM8K);
    expect(numRows).toBe(1319);
    expect(rows).toHaveLength(1319);
    expect(fields.map((f) => `${f.name}: ${formatDataType(f.type)}`)).toEqual([
      'data_source: string',
      'agent_name: string',
      'prompt: list<element: struct<content: string, role: string>>',
      'ability: string',
      'reward_model: struct<ground_truth: string, style: string>',
      'extra_info: struct<answer: string, index: int64, interaction_kwargs: struct<ground_truth: string, query: string>, ' +
        'need_tools_kwargs: bool, question: string, split: string, ' +
        'tools_kwargs: struct<calc_gsm8k_reward: struct<create_kwargs: struct<ground_truth: string>>>>',
    ]);
    const first = rows[0]!;
    expect(first).toMatchObject({
      data_source: 'openai/gsm8k',
      agent_name: 'tool_agent',
      ability: 'math',
      reward_model: { ground_truth: '18', style: 'rule' },
      extra_info: { index: 0, split: 'test', need_tools_kwargs: true, tools_kwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '18' } } } },
    });
    expect(first.prompt).toHaveLength(2);
    expect(first.prompt).toMatchObject([{ role: 'system' }, { role: 'user' }]);
    // int64 comes back as a JS number, and the second row group decodes as well as the first.
    expect(rows[1318]).toMatchObject({ reward_model: { ground_truth: '14' }, extra_info: { index: 1318, interaction_kwargs: { ground_truth: '14' } } });
    expect(rows.map((r) => (r.extra_info as { index: number }).index)).toEqual(Array.from({ length: 1319 }, (_, i) => i));
  });

  it('reads a row range and a column subset', async () => {
    const { rows } = await readParquetRows(GSM8K, { columns: ['reward_model'], rowStart: 998, rowEnd: 1001 });
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0]!)).toEqual(['reward_model']);
    expect(rows[2]).toEqual({ reward_model: { ground_truth: '1', style: 'rule' } });
    expect((await readParquetRows(GSM8K, { rowStart: 1300, rowEnd: 5000 })).rows).toHaveLength(19);
    expect((await readParquetRows(GSM8K, { rowStart: 1319 })).rows).toEqual([]);
  });

  it('iterates row groups in order, covering every row once', async () => {
    const file = await openParquetFile(GSM8K);
    expect(file.rowGroups).toEqual([
      { rowStart: 0, rowEnd: 1000 },
      { rowStart: 1000, rowEnd: 1319 },
    ]);
    const starts: number[] = [];
    let total = 0;
    for await (const batch of file.batches({ columns: ['data_source'] })) {
      starts.push(batch.rowStart);
      total += batch.rows.length;
    }
    expect(starts).toEqual([0, 1000]);
    expect(total).toBe(1319);
  });

  it('names the problem with a missing file, a non-parquet file, a bad column or range', async () => {
    await expect(openParquetFile(join(tmp.dir, 'missing.parquet'))).rejects.toMatchObject({ code: 'not_found' });
    const junk = join(tmp.dir, 'junk.parquet');
    writeFileSync(junk, 'this is not parquet at all');
    await expect(openParquetFile(junk)).rejects.toMatchObject({ code: 'bad_request' });
    await expect(readParquetRows(GSM8K, { columns: ['nope'] })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining('nope') });
    await expect(readParquetRows(GSM8K, { rowStart: -1 })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(readParquetRows(GSM8K, { rowStart: 5, rowEnd: 2 })).rejects.toMatchObject({ code: 'bad_request' });
  });
});
