import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readParquetRows } from '@rl/datasets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.ts';

const run = promisify(execFile);
const CLI = join(ROOT, 'shared/datasets/bin/rl-data.ts');
const GSM8K_FIXTURE = join(ROOT, 'test/fixtures/verl/verl_gsm8k_test.parquet');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rl-data-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => run(process.execPath, [CLI, ...args], { timeout: 60_000, maxBuffer: 64 << 20 });
const cliFails = (args: string[]) =>
  cli(args).then(
    () => expect.unreachable('the CLI should have failed'),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
const at = (name: string) => join(dir, name);
const turn = (from: string, value: string) => ({ from, value });

const STORIES = [
  {
    id: 's1',
    system: '雪の村 ❄️',
    conversations: [turn('human', 'Hello'), turn('gpt', 'こんにちは'), turn('human', 'More?'), turn('gpt', 'Of course 🙂'), turn('human', 'bye')],
  },
  { system: 'Bad', conversations: [turn('user', 'x'), turn('bot', 'y')] },
  { system: 'One', conversations: [turn('user', 'go'), turn('assistant', 'went')] },
];

describe('rl-data CLI (real process)', () => {
  it('convert-story writes verl samples, reports skipped records by line and field, and inspect shows them', async () => {
    writeFileSync(at('stories.jsonl'), `${STORIES.map((s) => JSON.stringify(s)).join('\n')}\n`);
    const { stdout, stderr } = await cli([
      'convert-story',
      at('stories.jsonl'),
      at('stories.parquet'),
      '--data-source',
      'my_story',
      '--instruction',
      'Tell it.',
    ]);
    expect(stdout).toContain('records: 3 (2 converted, 1 skipped)');
    expect(stdout).toContain('samples: 3 written to');
    expect(stdout).toContain('line 2: conversations[1].from: expected "user" or "assistant" (or "human"/"gpt"), got "bot"');
    expect(stderr).toBe(''); // no bar when stderr is not a terminal
    const { rows } = await readParquetRows(at('stories.parquet'));
    expect(rows.map((r) => [r.data_source, r.user_input, r.target_response, r.extra_info])).toEqual([
      ['my_story', 'Hello', 'こんにちは', { conversation_id: 's1', index: 0, turn: 1 }],
      ['my_story', 'More?', 'Of course 🙂', { conversation_id: 's1', index: 1, turn: 2 }],
      ['my_story', 'go', 'went', { conversation_id: '2', index: 2, turn: 1 }],
    ]);
    expect(rows[0]!.system_prompt).toMatch(/^Tell it\.\n\n雪の村 ❄️\n\n/);
    // --context story (the default): the prompt without r has no story setting.
    expect((rows[1]!.prompt_without_context as Array<{ content: string }>)[0]!.content).toMatch(/^Tell it\.\n\n[^雪]/);
    await cli(['convert-story', at('stories.jsonl'), at('history.parquet'), '--context', 'history']);
    const history = (await readParquetRows(at('history.parquet'))).rows;
    expect((history[1]!.prompt_without_context as unknown[]).length).toBe(2); // system prompt and the user turn, no earlier turns

    const inspected = JSON.parse((await cli(['inspect', at('stories.parquet'), '--rows', '1', '--json'])).stdout) as {
      numRows: number;
      columns: Array<{ name: string; type: string }>;
      rows: unknown[];
    };
    expect(inspected.numRows).toBe(3);
    expect(inspected.columns.find((c) => c.name === 'prompt')?.type).toBe('list<element: struct<content: string, role: string>>');
    expect(inspected.rows).toEqual([rows[0]]);
  });

  it('--strict fails on the first broken record and leaves no output file', async () => {
    writeFileSync(at('strict.json'), JSON.stringify(STORIES));
    const err = await cliFails(['convert-story', at('strict.json'), at('strict.parquet'), '--strict']);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain('record 1: conversations[1].from');
    expect(readdirSync(dir).filter((f) => f.startsWith('strict.parquet'))).toEqual([]);
  });

  it('--dry-run prints the summary and histogram and writes nothing; --progress draws a bar on stderr', async () => {
    writeFileSync(at('dry.json'), JSON.stringify(STORIES));
    const { stdout, stderr } = await cli(['convert-story', at('dry.json'), at('dry.parquet'), '--dry-run', '--progress']);
    expect(stdout).toContain('samples: 3 (dry run, nothing written)');
    expect(stdout).toContain('conversations: 2 (0 without any sample)');
    expect(stdout).toMatch(/samples per conversation:\n\s+1 \| #+ 1\n\s+2 \| #+ 1/);
    expect(stdout).toContain('1 trailing user turns');
    expect(stderr).toContain('100%');
    expect(existsSync(at('dry.parquet'))).toBe(false);
  });

  it('convert-gsm8k --format tool-agent rebuilds the verl fixture from raw question/answer lines', async () => {
    const fixture = await readParquetRows(GSM8K_FIXTURE);
    const raw = fixture.rows.map((r) => {
      const info = r.extra_info as { question: string; answer: string };
      return JSON.stringify({ question: info.question, answer: info.answer });
    });
    writeFileSync(at('gsm8k.jsonl'), `${raw.join('\n')}\n`);
    const { stdout } = await cli(['convert-gsm8k', at('gsm8k.jsonl'), at('gsm8k.parquet'), '--split', 'test', '--format', 'tool-agent']);
    expect(stdout).toContain('rows: 1319 written to');
    const out = await readParquetRows(at('gsm8k.parquet'));
    expect(out.fields).toEqual(fixture.fields);
    expect(out.rows).toEqual(fixture.rows);
  });

  it('inspect prints the nested schema and first rows of a verl file', async () => {
    const { stdout } = await cli(['inspect', GSM8K_FIXTURE, '--rows', '1']);
    expect(stdout).toContain('rows: 1319 in 2 row group(s)');
    expect(stdout).toContain('  reward_model: struct<ground_truth: string, style: string>');
    expect(stdout).toContain('tools_kwargs: struct<calc_gsm8k_reward: struct<create_kwargs: struct<ground_truth: string>>>');
    expect(stdout).toContain('row 0:\n{\n  "data_source": "openai/gsm8k"');
    expect(stdout).not.toContain('row 1:');
  });

  it('exits 2 on usage errors and 1 when the work fails', async () => {
    for (const args of [
      ['convert-gsm8k', 'a.jsonl', 'b.parquet', '--format', 'fancy'],
      ['inspect', 'x.parquet', '--rows', '-1'],
      ['convert-story', 'only-one-arg'],
      ['nonsense'],
      [],
    ]) {
      expect((await cliFails(args)).code, args.join(' ')).toBe(2);
    }
    const missing = await cliFails(['inspect', at('missing.parquet')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not_found');
    const noInput = await cliFails(['convert-story', at('missing.jsonl'), at('never.parquet'), '--progress']);
    expect([noInput.code, noInput.stderr.includes('missing.jsonl: no such file'), existsSync(at('never.parquet'))]).toEqual([1, true, false]);
    writeFileSync(at('not.parquet'), 'plain text');
    expect((await cliFails(['inspect', at('not.parquet')])).code).toBe(1);
  });
});
