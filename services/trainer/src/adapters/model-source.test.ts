import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BYTE_SPECIALS, arithmeticTokenizer, createTokenizer, trainBpe } from '@rl/policy';
import { writeTinyModelDir } from '@rl/policy/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointLayout } from '../policy/checkpoint-layout.ts';
import { commitCheckpoint, stepDir } from './checkpoint-store.ts';
import { checkModelLength, resolveModelDir, resolveModelSource, tokenizerFromKey } from './model-source.ts';

let dir: string;
const job = () => join(dir, 'job');
const step3 = () => checkpointLayout(stepDir(job(), 3));
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'model-source-'));
  // A job directory with a checkpoint at step 3, as a GAE job leaves it (byte tokenizer).
  await writeTinyModelDir(step3().actor.hf, { seed: 1 });
  await writeTinyModelDir(step3().critic.hf, { seed: 2, valueHead: true });
  await commitCheckpoint(job(), { step: 3, sampler: { epoch: 0, index: 0 }, kl_coef: null, version: 'v3' });
  // A directory as the Hub has them: a Qwen2 with its own (char) tokenizer.
  await writeTinyModelDir(join(dir, 'hub'), { architecture: 'Qwen2ForCausalLM', tokenizer: arithmeticTokenizer() });
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'tok.json'), JSON.stringify(trainBpe(['hi hi'], { vocabSize: 262, specials: BYTE_SPECIALS, minFrequency: 1 })));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('model-source (actor_rollout_ref.model.path / tokenizer, model.partial_pretrain, critic.model.path)', () => {
  it('finds the model directory from itself, a checkpoint model dir, a step dir or a job dir (its latest checkpoint)', async () => {
    const hf = step3().actor.hf;
    for (const p of [hf, step3().actor.dir, stepDir(job(), 3), job()]) expect(await resolveModelDir(p, 'actor_rollout_ref.model.path')).toBe(hf);
    expect(await resolveModelDir(join(dir, 'hub'), 'actor_rollout_ref.model.path')).toBe(join(dir, 'hub'));
    // A critic path prefers the checkpoint's critic, and takes its actor where there is none.
    expect(await resolveModelDir(job(), 'critic.model.path', 'critic')).toBe(step3().critic.hf);
    expect(await resolveModelDir(join(dir, 'hub'), 'critic.model.path', 'critic')).toBe(join(dir, 'hub'));
    await expect(resolveModelDir(join(dir, 'empty'), 'critic.model.path', 'critic')).rejects.toThrow(
      /^critic\.model\.path: no model directory \(config\.json\) at .*empty; looked in /,
    );
  });

  it("takes the directory's own tokenizer unless the tokenizer key overrides it; random init defaults to char", async () => {
    const base = { baseDir: dir, pathField: 'actor_rollout_ref.model.path', tokenizerField: 'actor_rollout_ref.model.tokenizer' };
    const own = await resolveModelSource({ ...base, path: 'job', tokenizer: null });
    expect(own).toMatchObject({ modelDir: step3().actor.hf, config: { architecture: 'Qwen3ForCausalLM', nKvHeads: 2 } });
    expect(own.tokenizer.kind).toBe('byte');
    const hub = await resolveModelSource({ ...base, path: 'hub', tokenizer: null });
    expect(hub.tokenizer.config).toEqual(arithmeticTokenizer().config);
    expect(hub.config?.architecture).toBe('Qwen2ForCausalLM');
    expect((await resolveModelSource({ ...base, path: 'job', tokenizer: 'char' })).tokenizer.kind).toBe('char');
    // A tokenizer directory works as a key too.
    expect((await resolveModelSource({ ...base, path: 'job', tokenizer: 'hub' })).tokenizer.config).toEqual(arithmeticTokenizer().config);
    await expect(resolveModelSource({ ...base, path: 'hub', tokenizer: 'byte' })).rejects.toThrow(
      /^actor_rollout_ref\.model\.tokenizer: the tokenizer has \d+ tokens, more than the model's vocab_size \d+/,
    );
    const fresh = await resolveModelSource({ ...base, path: null, tokenizer: null });
    expect(fresh).toMatchObject({ modelDir: null, config: null });
    expect(fresh.tokenizer.kind).toBe('char');
  });

  it('refuses a model whose max_position_embeddings is shorter than the job, naming the key', async () => {
    const own = await resolveModelSource({ path: 'job', tokenizer: null, baseDir: dir, pathField: 'model.partial_pretrain', tokenizerField: 't' });
    expect(() => checkModelLength(own, 64, 'model.partial_pretrain', 'data.max_length')).not.toThrow();
    expect(() => checkModelLength(own, 65, 'model.partial_pretrain', 'data.max_length')).toThrow(
      "model.partial_pretrain: the model's max_position_embeddings (64) is shorter than data.max_length (65)",
    );
  });

  it('reads char, byte, tokenizer.json and tokenizer-directory keys; a bad file names the key', async () => {
    expect((await tokenizerFromKey('char', dir, 'k')).kind).toBe('char');
    expect(await tokenizerFromKey('byte', dir, 'k')).toEqual({ kind: 'byte' });
    const hf = createTokenizer(await tokenizerFromKey('tok.json', dir, 'model.tokenizer'));
    expect(hf.decode(hf.encode('hi there'))).toBe('hi there');
    expect(hf.encode('hi')).toHaveLength(1);
    expect((await tokenizerFromKey('hub', dir, 'k')).kind).toBe('char');
    await expect(tokenizerFromKey('missing.json', dir, 'model.tokenizer')).rejects.toThrow(/^model\.tokenizer: cannot read tokenizer\.json/);
    await expect(tokenizerFromKey('empty', dir, 'model.tokenizer')).rejects.toThrow(/^model\.tokenizer: /);
  });
});
