// The embedded backend's model setting: POLICY_PATH (a Hugging Face model
// directory or a weights file) and POLICY_INIT, with real files on disk.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BYTE_SPECIALS, chatMlBpeTokenizer, saveWeights, trainBpe } from '@rl/policy';
import { writeTinyModelDir } from '@rl/policy/testing';
import { createLogger, ErrorCode } from '@rl/service-kit';
import { expectAppErrorAsync } from '@rl/service-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GenerationConfig } from '../config.ts';
import { createEmbeddedBackend } from '../core/backends/embedded-backend.ts';
import type { TokenSession } from '../core/backend.ts';
import { createPolicySource, type PolicySource } from './policy-provider.ts';

const logger = createLogger({ service: 'generation-test', level: 'silent' });
const PROMPT = [{ role: 'user' as const, content: 'Hello' }];
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'generation-policy-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const sourceOf = (env: Record<string, string>) => createPolicySource(GenerationConfig.parse(env), undefined, logger);

/** Runs `fn` on a token session of the embedded backend over `source`, then stops it. */
async function withSession<T>(source: PolicySource, fn: (s: TokenSession) => Promise<T>): Promise<T> {
  const session = await createEmbeddedBackend({ provider: source.provider, model: 'm' }).open();
  try {
    if (session.mode !== 'tokens') throw new Error('token session expected');
    return await fn(session);
  } finally {
    session.release();
    await source.stop();
  }
}

describe('POLICY_PATH', () => {
  it('serves a Hugging Face model directory (sharded BF16 safetensors, tokenizer files, chat template)', async () => {
    const dir = join(root, 'sharded');
    const weights = await writeTinyModelDir(dir, { dtype: 'BF16', shards: 3, version: 'step-7' });
    const source = await sourceOf({ POLICY_PATH: dir });
    expect(source.describe).toBe(dir);
    const model = source.provider.current();
    expect(model?.version).toBe('step-7');
    expect(model?.maxSequenceLength).toBe(weights.config.maxSeqLen);
    await withSession(source, async (session) => {
      const ids = await session.codec.encodeChat(PROMPT, { addGenerationPrompt: true });
      expect(await session.codec.decode(ids, { keepSpecial: true })).toBe('<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n');
      const gen = await session.generate({ promptIds: ids, params: { maxTokens: 4, temperature: 0 } });
      expect(gen.tokenIds.length).toBeGreaterThan(0);
      expect(gen.logprobs).toHaveLength(gen.tokenIds.length);
    });
  });

  it('still serves a weights file this project writes', async () => {
    const dir = join(root, 'for-file');
    const weights = await writeTinyModelDir(dir, { version: 'v-file' });
    const file = join(root, 'policy.safetensors');
    await saveWeights(file, weights);
    const source = await sourceOf({ POLICY_PATH: file });
    expect(source.provider.current()?.version).toBe('v-file');
    await source.stop();
  });

  it('stops on every eos id of generation_config.json, and request stop ids do not turn them off', async () => {
    // A Hugging Face tokenizer (a small trained BPE): its eos ids come from tokenizer_config.json and generation_config.json.
    const tokenizer = chatMlBpeTokenizer(
      trainBpe(['Hello there, how are you?', 'Fine, thanks.'], { vocabSize: 280, specials: BYTE_SPECIALS, pretokenizer: 'gpt2' }),
    );
    const dir = join(root, 'eos');
    await writeTinyModelDir(dir, { seed: 3, tokenizer });
    const prompt = tokenizer.applyChatTemplate(PROMPT, { addGenerationPrompt: true });
    const greedy = (stopTokenIds?: number[]) => async (s: TokenSession) =>
      s.generate({ promptIds: prompt, params: { maxTokens: 6, temperature: 0, ...(stopTokenIds !== undefined ? { stopTokenIds } : {}) } });
    const free = await withSession(await sourceOf({ POLICY_PATH: dir }), greedy());
    const first = free.tokenIds[0] as number;
    // The tiny model's first greedy token is an ordinary one (not the EOS), and it goes on after it.
    expect(first).not.toBe(tokenizer.eosId);
    expect(free.tokenIds.length).toBeGreaterThan(1);

    const genConfig = JSON.parse(await readFile(join(dir, 'generation_config.json'), 'utf8')) as { eos_token_id: number };
    await writeFile(join(dir, 'generation_config.json'), JSON.stringify({ ...genConfig, eos_token_id: [genConfig.eos_token_id, first] }));
    const stopped = await withSession(await sourceOf({ POLICY_PATH: dir }), greedy([0]));
    expect(stopped).toMatchObject({ tokenIds: [first], finishReason: 'stop', stopReason: first });
  });

  it('names the setting when the path is missing, not a model directory, or its config is refused', async () => {
    const missing = join(root, 'nope');
    const e1 = await expectAppErrorAsync(sourceOf({ POLICY_PATH: missing }), ErrorCode.InvalidConfig);
    expect(e1.message).toBe(`POLICY_PATH ${missing}: no such file or directory`);

    const empty = join(root, 'empty');
    await mkdir(empty);
    const e2 = await expectAppErrorAsync(sourceOf({ POLICY_PATH: empty }), ErrorCode.InvalidConfig);
    expect(e2.message).toMatch(new RegExp(`^POLICY_PATH ${empty}: .*without config.json`));

    const yarn = join(root, 'yarn');
    await writeTinyModelDir(yarn);
    const config = JSON.parse(await readFile(join(yarn, 'config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(yarn, 'config.json'), JSON.stringify({ ...config, rope_scaling: { rope_type: 'yarn', factor: 4 } }));
    const e3 = await expectAppErrorAsync(sourceOf({ POLICY_PATH: yarn }), ErrorCode.InvalidConfig);
    expect(e3.message).toMatch(new RegExp(`^POLICY_PATH ${yarn}: .*config.json.*rope_scaling.*yarn`));

    const torn = join(root, 'torn');
    await writeTinyModelDir(torn);
    await writeFile(join(torn, 'model.safetensors'), Buffer.from('not safetensors'));
    const e4 = await expectAppErrorAsync(sourceOf({ POLICY_PATH: torn }), ErrorCode.InvalidConfig);
    expect(e4.message).toMatch(new RegExp(`^POLICY_PATH ${torn}: .*model.safetensors`));
  });
});

describe('POLICY_INIT', () => {
  it('builds the untrained model from the new ModelConfig fields; the default is a tiny Qwen3', async () => {
    const gqa = await sourceOf({
      POLICY_INIT: '{"architecture":"LlamaForCausalLM","dModel":16,"nLayers":1,"nHeads":4,"nKvHeads":1,"headDim":8,"dFF":32,"maxSeqLen":128}',
    });
    expect(gqa.provider.current()).toMatchObject({ version: 'untrained-seed0', maxSequenceLength: 128 });
    await gqa.stop();
    expect(GenerationConfig.parse({}).POLICY_INIT).toEqual({
      architecture: 'Qwen3ForCausalLM',
      dModel: 64,
      nLayers: 2,
      nHeads: 4,
      dFF: 128,
      maxSeqLen: 4096,
    });
  });

  it('names POLICY_INIT and the field when the shape is refused', async () => {
    const e = await expectAppErrorAsync(
      sourceOf({ POLICY_INIT: '{"dModel":16,"nLayers":1,"nHeads":4,"nKvHeads":3,"dFF":32,"maxSeqLen":64}' }),
      ErrorCode.InvalidConfig,
    );
    expect(e.message).toMatch(/^POLICY_INIT: .*nKvHeads/);
    const notJson = GenerationConfig.safeParse({ POLICY_INIT: '[1]' });
    expect(notJson.success ? [] : notJson.error.issues.map((i) => i.path.join('.'))).toEqual(['POLICY_INIT']);
  });
});
