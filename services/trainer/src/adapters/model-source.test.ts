import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BYTE_SPECIALS, createRandomPolicy, createTokenizer, saveWeights, trainBpe } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitCheckpoint, policyDir } from './checkpoint-store.ts';
import { resolveModelSource, resolveWeightsFile, tokenizerFromKey } from './model-source.ts';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'model-source-'));
  const policy = await createRandomPolicy({ config: { dModel: 8, nLayers: 1, nHeads: 2, dFF: 16, maxSeqLen: 16 }, tokenizer: { kind: 'byte' }, seed: 1 });
  const weights = await policy.exportWeights('v3');
  policy.dispose();
  // A job directory with a checkpoint at step 3, as an SFT job leaves it.
  mkdirSync(policyDir(join(dir, 'job'), 3), { recursive: true });
  await saveWeights(join(policyDir(join(dir, 'job'), 3), 'actor.safetensors'), weights);
  await commitCheckpoint(join(dir, 'job'), { step: 3, sampler: { epoch: 0, index: 0 }, kl_coef: null, version: 'v3' });
  writeFileSync(join(dir, 'tok.json'), JSON.stringify(trainBpe(['hi hi'], { vocabSize: 262, specials: BYTE_SPECIALS, minFrequency: 1 })));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('model-source (actor_rollout_ref.model.path / tokenizer, model.partial_pretrain, critic.model.path)', () => {
  it('finds the actor weights from a file, a policy dir, a step dir or a job dir (its latest checkpoint)', async () => {
    const file = join(policyDir(join(dir, 'job'), 3), 'actor.safetensors');
    for (const p of [file, policyDir(join(dir, 'job'), 3), join(dir, 'job', 'global_step_3'), join(dir, 'job')]) {
      expect(await resolveWeightsFile(p, 'actor_rollout_ref.model.path')).toBe(file);
    }
    await expect(resolveWeightsFile(join(dir, 'nothing'), 'critic.model.path')).rejects.toThrow(/^critic\.model\.path: no weights at/);
  });

  it('takes the tokenizer of the weights when a path is given, else the tokenizer key', async () => {
    const fromWeights = await resolveModelSource({ path: join(dir, 'job'), tokenizer: null, baseDir: dir, pathField: 'p', tokenizerField: 't' });
    expect(fromWeights.tokenizer.kind).toBe('byte');
    expect(fromWeights.weightsFile).toMatch(/actor\.safetensors$/);
    const fresh = await resolveModelSource({ path: null, tokenizer: null, baseDir: dir, pathField: 'p', tokenizerField: 't' });
    expect(fresh).toMatchObject({ weightsFile: null });
    expect(fresh.tokenizer.kind).toBe('char');
  });

  it('reads char, byte and tokenizer.json keys; a bad file names the key', async () => {
    expect((await tokenizerFromKey('char', dir, 'k')).kind).toBe('char');
    expect(await tokenizerFromKey('byte', dir, 'k')).toEqual({ kind: 'byte' });
    const hf = await tokenizerFromKey('tok.json', dir, 'model.tokenizer');
    expect(createTokenizer(hf).decode(createTokenizer(hf).encode('hi there'))).toBe('hi there');
    expect(createTokenizer(hf).encode('hi')).toHaveLength(1);
    await expect(tokenizerFromKey('missing.json', dir, 'model.tokenizer')).rejects.toThrow(/^model\.tokenizer: cannot read tokenizer\.json/);
  });
});
