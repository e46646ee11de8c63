import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createParquetWriter, fieldsOf, MESSAGE_LIST, REWARD_MODEL, scalar, structOf } from '@rl/datasets';

/** verl's own files, copied into the repository (test/fixtures/verl). */
export const FIXTURES_DIR = resolve(import.meta.dirname, '../../../../../test/fixtures/verl');

/** A temporary directory and its cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const CHAT_FIELDS = fieldsOf({
  data_source: scalar('string'),
  agent_name: scalar('string'),
  prompt: MESSAGE_LIST,
  ability: scalar('string'),
  reward_model: REWARD_MODEL,
  extra_info: structOf({ index: scalar('int64'), split: scalar('string') }),
});

/** Writes a verl chat-format file whose row i asks `q<tag><i>` with ground truth `<i>`. */
export async function writeChatFile(path: string, tag: string, rows: number, rowGroupRows = 4): Promise<string> {
  const w = await createParquetWriter(path, CHAT_FIELDS, { rowGroupRows });
  for (let i = 0; i < rows; i++) {
    await w.write({
      data_source: `src_${tag}`,
      agent_name: 'single_turn_agent',
      prompt: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: `q${tag}${i}${'x'.repeat(i)}` },
      ],
      ability: 'math',
      reward_model: { ground_truth: String(i), style: 'rule' },
      extra_info: { index: i, split: 'train' },
    });
  }
  await w.close();
  return path;
}
