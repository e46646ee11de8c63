import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTokenizer, tokenizerFromDir } from '@rl/policy';
import { fixture } from '../testing/fixtures.ts';
import { trainTokenizer } from './rl-data-tokenizer.ts';

describe('rl-data train-tokenizer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'train-tok-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes tokenizer.json with tokenizer_config.json (ChatML template, specials) beside it, loadable as a chat tokenizer', async () => {
    const output = join(dir, 'tokenizer.json');
    await trainTokenizer(output, [fixture('verl_arithmetic_sequence_train.parquet')], { vocabSize: 300, columns: ['prompt'], pretokenizer: 'gpt2' });
    expect(readdirSync(dir).sort()).toEqual(['special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);
    const tok = createTokenizer(await tokenizerFromDir(output));
    expect([tok.padId, tok.bosId, tok.eosId]).toEqual([256, 257, 260]);
    const ids = tok.applyChatTemplate([{ role: 'user', content: '1,2:' }], { addGenerationPrompt: true });
    expect(tok.decode(ids, { keepSpecial: true })).toBe('<|im_start|>user\n1,2:<|im_end|>\n<|im_start|>assistant\n');
  });
});
