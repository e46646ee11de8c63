import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConversion } from './convert-run.ts';
import { readJsonRecords } from './json-records.ts';
import { readParquetRows } from './parquet-reader.ts';
import { createParquetWriter } from './parquet-writer.ts';
import { createStoryConverter } from './story-convert.ts';
import { STORY_FIELDS, type StoryOptions, type StorySample } from './story.ts';
import { tempDir } from './testing/fixtures.ts';

const tmp = tempDir('rl-story-');
afterAll(tmp.cleanup);

const OPTIONS: StoryOptions = { dataSource: 'story', instruction: '物語を続けてください。', outputFormat: 'Plain prose 📝.', context: 'story' };
const turn = (from: string, value: string) => ({ from, value });

const RECORDS = [
  {
    id: 'tokyo',
    system: '東京の夜。A rainy night in Tokyo 🌧️; Zoë\u0301 waits.',
    conversations: [
      turn('human', 'こんにちは 👋'),
      turn('gpt', 'The neon flickers — 雨が降る。'),
      turn('human', ''),
      turn('gpt', 'Silence… 🤫'),
      turn('human', 'e\u0301\u0301?'),
    ],
  },
  { system: 'Broken', conversations: [turn('user', 'x'), turn('narrator', 'y')] },
  {
    system: 'Desert.',
    conversations: [turn('assistant', 'Sand everywhere.'), turn('user', 'I walk.'), turn('user', 'North.'), turn('assistant', 'A well appears.')],
  },
  { system: 'Missing conversations' },
  { system: 'Only a user.', conversations: [turn('user', 'hello?')] },
];

async function convertToParquet(name: string, text: string, strict = false) {
  const input = join(tmp.dir, `${name}.jsonl`);
  const output = join(tmp.dir, `${name}.parquet`);
  writeFileSync(input, text);
  const converter = createStoryConverter(OPTIONS);
  const writer = await createParquetWriter(output, STORY_FIELDS, { rowGroupRows: 2 });
  try {
    const report = await runConversion(readJsonRecords(input), converter, { strict, write: (row: StorySample) => writer.write(row) });
    await writer.close();
    return { report, stats: converter.stats, output };
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

describe('story conversion JSONL -> parquet -> rows', () => {
  it('round-trips unicode, empty turns and merged turns, skipping broken records with reasons', async () => {
    const text = `${RECORDS.map((r) => JSON.stringify(r)).join('\n')}\n{not json\n`;
    const { report, stats, output } = await convertToParquet('mixed', text);
    expect(report).toMatchObject({ records: 6, rows: 3, skipped: 3 });
    expect(report.skippedList.map((s) => s.label)).toEqual(['line 2', 'line 4', 'line 6']);
    expect(report.skippedList[0]!.reason).toBe('conversations[1].from: expected "user" or "assistant" (or "human"/"gpt"), got "narrator"');
    expect(report.skippedList[1]!.reason).toContain('conversations: expected an array');
    expect(report.skippedList[2]!.reason).toContain('not valid JSON');
    expect(stats).toMatchObject({
      conversations: 3,
      conversationsWithoutSamples: 1,
      emptyTurns: 1,
      mergedTurns: 1,
      leadingAssistantTurns: 1,
      trailingUserTurns: 2,
    });
    expect([...stats.samplesPerConversation.entries()].sort()).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);

    const { rows, fields } = await readParquetRows(output);
    expect(fields).toEqual(STORY_FIELDS);
    const system = `物語を続けてください。\n\n${RECORDS[0]!.system}\n\nPlain prose 📝.`;
    expect(rows[1]).toEqual({
      data_source: 'story',
      prompt: [
        { role: 'system', content: system },
        { role: 'user', content: 'こんにちは 👋' },
        { role: 'assistant', content: 'The neon flickers — 雨が降る。' },
        { role: 'user', content: '' },
      ],
      prompt_without_context: [
        { role: 'system', content: '物語を続けてください。\n\nPlain prose 📝.' },
        { role: 'user', content: 'こんにちは 👋' },
        { role: 'assistant', content: 'The neon flickers — 雨が降る。' },
        { role: 'user', content: '' },
      ],
      ability: 'story',
      reward_model: { ground_truth: 'Silence… 🤫', style: 'model' },
      extra_info: { conversation_id: 'tokyo', index: 1, turn: 2 },
      system_prompt: system,
      conversation_history: [
        { role: 'user', content: 'こんにちは 👋' },
        { role: 'assistant', content: 'The neon flickers — 雨が降る。' },
      ],
      story_content: RECORDS[0]!.system,
      user_input: '',
      output_format: 'Plain prose 📝.',
      target_response: 'Silence… 🤫',
    });
    // The third record has no id: its 0-based input position (2) names it, whatever was skipped before it.
    expect(rows[2]).toMatchObject({
      extra_info: { conversation_id: '2', index: 2, turn: 1 },
      user_input: 'I walk.\nNorth.',
      target_response: 'A well appears.',
    });
    expect((rows[2]!.conversation_history as unknown[]).length).toBe(1);
  });

  it('stops at the first broken record with --strict, naming it', async () => {
    const text = RECORDS.map((r) => JSON.stringify(r)).join('\n');
    await expect(convertToParquet('strict', text, true)).rejects.toMatchObject({
      code: 'validation_failed',
      message: 'line 2: conversations[1].from: expected "user" or "assistant" (or "human"/"gpt"), got "narrator"',
    });
  });
});
