import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataRow } from './data-value.ts';
import { createGsm8kConverter, extractGsm8kSolution, gsm8kFields, gsm8kRow, parseGsm8kRecord } from './gsm8k.ts';
import { readParquetRows } from './parquet-reader.ts';
import { createParquetWriter } from './parquet-writer.ts';
import { fixture, tempDir } from './testing/fixtures.ts';

const tmp = tempDir('rl-gsm8k-');
afterAll(tmp.cleanup);

let fixtureRows: DataRow[];
let fixtureFields: Awaited<ReturnType<typeof readParquetRows>>['fields'];
beforeAll(async () => {
  ({ rows: fixtureRows, fields: fixtureFields } = await readParquetRows(fixture('verl_gsm8k_test.parquet')));
});

// The raw {question, answer} a fixture row was made from: verl keeps both in extra_info.
const rawOf = (row: DataRow) => {
  const info = row.extra_info as { question: string; answer: string };
  return { question: info.question, answer: info.answer };
};

describe('extractGsm8kSolution (verl extract_solution)', () => {
  it.each([
    ['so #### 18', '18'],
    ['#### 1,234,567', '1234567'],
    ['#### -3.5', '-3.5'],
    ['first #### 7 then #### 8', '7'],
    ['#### 12 dollars', '12'],
    ['#### .5,', '.5'],
    ['####18', undefined],
    ['#### $18', undefined],
    ['no marker', undefined],
    ['#### ١٢', undefined],
  ])('%j -> %j', (answer, expected) => {
    expect(extractGsm8kSolution(answer)).toBe(expected);
  });
});

describe('GSM8K conversion', () => {
  it('rebuilds all 1319 rows of verl_gsm8k_test.parquet field by field from the raw records (tool-agent)', () => {
    expect(fixtureRows).toHaveLength(1319);
    fixtureRows.forEach((expected, i) => {
      const row = gsm8kRow(parseGsm8kRecord(rawOf(expected), `line ${i + 1}`), i, 'test', 'tool-agent');
      expect(row, `row ${i}`).toEqual(expected);
    });
  });

  it('writes the tool-agent file with the fixture schema, and it reads back equal to the fixture', async () => {
    expect(gsm8kFields('tool-agent')).toEqual(fixtureFields);
    const path = join(tmp.dir, 'gsm8k.parquet');
    const writer = await createParquetWriter(path, gsm8kFields('tool-agent'));
    const converter = createGsm8kConverter('test', 'tool-agent');
    for (const [i, row] of fixtureRows.entries()) for (const out of converter.convert(rawOf(row), `line ${i + 1}`, i, i)) await writer.write(out);
    await writer.close();
    const back = await readParquetRows(path);
    expect(back.fields).toEqual(fixtureFields);
    expect(back.rows).toEqual(fixtureRows);
  });

  it('makes the plain format exactly as verl gsm8k.py does', () => {
    const raw = { question: 'What is 2,000 + 1?', answer: 'Add.\n#### 2,001' };
    expect(gsm8kRow(parseGsm8kRecord(raw, 'line 1'), 4, 'train', 'plain')).toEqual({
      data_source: 'openai/gsm8k',
      prompt: [{ role: 'user', content: 'What is 2,000 + 1? Let\'s think step by step and output the final answer after "####".' }],
      ability: 'math',
      reward_model: { ground_truth: '2001', style: 'rule' },
      extra_info: { split: 'train', index: 4, answer: 'Add.\n#### 2,001', question: 'What is 2,000 + 1?' },
    });
    expect(gsm8kFields('plain').map((f) => f.name)).toEqual(['data_source', 'prompt', 'ability', 'reward_model', 'extra_info']);
  });

  it.each([
    ['not an object', 'x', 'line 3: expected an object, got the string "x"'],
    ['missing question', { answer: '#### 1' }, 'line 3: question: expected a string, got nothing'],
    ['numeric answer', { question: 'q', answer: 1 }, 'line 3: answer: expected a string, got number 1'],
    ['no final answer', { question: 'q', answer: 'it is 4' }, 'line 3: answer: no final answer after "#### "'],
  ])('rejects a record with %s, naming the line and field', (_name, raw, message) => {
    expect(() => parseGsm8kRecord(raw, 'line 3')).toThrow(expect.objectContaining({ code: 'validation_failed', message }));
  });
});
