import { existsSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@rl/datasets/testing';
import type { PolicyWeights } from '../embedded-policy.ts';
import type { HostParams } from '../model/params.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import { ByteTokenizer } from '../tokenizers/byte-tokenizer.ts';
import { decodeTensorBytes, encodeTensorBytes } from '../weights/dtypes.ts';
import { decodeSafetensors, encodeSafetensors } from '../weights/safetensors.ts';
import { isModelDir, loadModelDir, saveModelDir } from './model-dir.ts';

const tmp = tempDir('rl-model-dir-');
afterAll(() => tmp.cleanup());
let n = 0;
const fresh = () => join(tmp.dir, `m${n++}`);

function bits(p: HostParams): Record<string, number[]> {
  return Object.fromEntries(
    Object.entries(p)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, t]) => [`${k} [${t.shape}]`, Array.from(new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length))]),
  );
}

function expectSameWeights(got: PolicyWeights | Omit<PolicyWeights, 'tokenizer'>, want: PolicyWeights): void {
  expect(got.config).toEqual(want.config);
  expect(got.version).toBe(want.version);
  expect(bits(got.params)).toEqual(bits(want.params));
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const writeJson = (path: string, v: unknown) => writeFileSync(path, JSON.stringify(v));
const shardName = (i: number, of: number) => `model-0000${i}-of-0000${of}.safetensors`;

describe('loadModelDir', () => {
  it('reads a single-file directory of each architecture and dtype', async () => {
    for (const architecture of ['Qwen3ForCausalLM', 'Qwen2ForCausalLM', 'LlamaForCausalLM'] as const) {
      for (const dtype of ['F32', 'BF16', 'F16'] as const) {
        const dir = fresh();
        const want = await writeTinyModelDir(dir, { architecture, dtype, tieEmbeddings: architecture !== 'Qwen2ForCausalLM', seed: 3 });
        const got = await loadModelDir(dir);
        expectSameWeights(got, want);
        expect(got.tokenizer).toEqual(want.tokenizer);
      }
    }
  });

  it('reads 3 shards to exactly what the single file gives, per dtype', async () => {
    for (const dtype of ['F32', 'BF16', 'F16'] as const) {
      const single = fresh();
      const sharded = fresh();
      const options = { dtype, seed: 5, tieEmbeddings: false, config: { attentionBias: true } };
      const want = await writeTinyModelDir(single, options);
      await writeTinyModelDir(sharded, { ...options, shards: 3 });
      expect(readdirSync(sharded).filter((f) => f.endsWith('.safetensors'))).toHaveLength(3);
      expect(existsSync(join(sharded, 'model.safetensors'))).toBe(false);
      const a = await loadModelDir(single);
      const b = await loadModelDir(sharded);
      expectSameWeights(a, want);
      expectSameWeights(b, want);
    }
  });

  it('takes the version from rl_policy_version, else "hf"; reads without the tokenizer when asked', async () => {
    const dir = fresh();
    await writeTinyModelDir(dir, { version: 'v12' });
    expect((await loadModelDir(dir)).version).toBe('v12');
    const plain = fresh();
    await writeTinyModelDir(plain);
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) unlinkSync(join(plain, f));
    const w = await loadModelDir(plain, { tokenizer: false });
    expect(w.version).toBe('hf');
    expect('tokenizer' in w).toBe(false);
    await expect(loadModelDir(plain)).rejects.toThrow(/tokenizer\.json/);
  });

  it('drops a tied checkpoint’s copy of the embedding and old RoPE inv_freq buffers', async () => {
    const dir = fresh();
    const want = await writeTinyModelDir(dir, { architecture: 'LlamaForCausalLM' });
    const file = join(dir, 'model.safetensors');
    const { tensors, metadata } = decodeSafetensors(readFileSync(file));
    const embed = tensors['model.embed_tokens.weight']!;
    const extra = {
      ...tensors,
      'lm_head.weight': { shape: embed.shape, data: Float32Array.from(embed.data) },
      'model.layers.0.self_attn.rotary_emb.inv_freq': { shape: [4], data: new Float32Array(4) },
    };
    writeFileSync(file, encodeSafetensors(extra, metadata));
    expectSameWeights(await loadModelDir(dir), want);
    extra['lm_head.weight'].data[5] = 1;
    writeFileSync(file, encodeSafetensors(extra, metadata));
    await expect(loadModelDir(dir)).rejects.toThrow(`${file}: tensor lm_head.weight differs from model.embed_tokens.weight, but tie_word_embeddings is true`);
  });

  it('reads one-label classification checkpoints as value heads (no lm_head; sequence classification has no score bias)', async () => {
    const dir = fresh();
    const want = await writeTinyModelDir(dir, { valueHead: true });
    const configPath = join(dir, 'config.json');
    // transformers' default tie_word_embeddings is false; a ForTokenClassification checkpoint still has no lm_head.
    writeJson(configPath, { ...readJson(configPath), tie_word_embeddings: false });
    const critic = await loadModelDir(dir);
    expectSameWeights(critic, want);
    expect(critic.config).toMatchObject({ valueHead: true, tieEmbeddings: true });

    writeJson(configPath, { ...readJson(configPath), architectures: ['Qwen3ForSequenceClassification'] });
    const file = join(dir, 'model.safetensors');
    const { tensors, metadata } = decodeSafetensors(readFileSync(file));
    const { 'score.bias': _bias, ...noBias } = tensors;
    writeFileSync(file, encodeSafetensors(noBias, metadata));
    const reward = await loadModelDir(dir);
    expect(Array.from(reward.params['score.bias']!.data)).toEqual([0]);
    expect(bits({ w: reward.params['score.weight']! })).toEqual(bits({ w: want.params['score.weight']! }));
  });

  describe('refuses bad directories, naming the file and key, and returns nothing', () => {
    async function sharded(): Promise<string> {
      const dir = fresh();
      await writeTinyModelDir(dir, { shards: 3, dtype: 'BF16' });
      return dir;
    }
    const indexOf = (dir: string) => join(dir, 'model.safetensors.index.json');

    it('a missing shard', async () => {
      const dir = await sharded();
      unlinkSync(join(dir, shardName(2, 3)));
      await expect(loadModelDir(dir)).rejects.toThrow(`${indexOf(dir)}: weight_map: shard ${shardName(2, 3)} is missing`);
    });

    it('a tensor the index names that its shard lacks', async () => {
      const dir = await sharded();
      const index = readJson(indexOf(dir)) as { weight_map: Record<string, string> };
      index.weight_map['model.layers.9.mlp.up_proj.weight'] = shardName(1, 3);
      writeJson(indexOf(dir), index);
      await expect(loadModelDir(dir)).rejects.toThrow(
        `${join(dir, shardName(1, 3))}: tensor model.layers.9.mlp.up_proj.weight (named in model.safetensors.index.json) is missing`,
      );
    });

    it('a tensor in a shard that the index does not name, or names elsewhere', async () => {
      const dir = await sharded();
      const index = readJson(indexOf(dir)) as { weight_map: Record<string, string> };
      const [name, shard] = Object.entries(index.weight_map).find(([, s]) => s === shardName(3, 3))!;
      delete index.weight_map[name];
      writeJson(indexOf(dir), index);
      await expect(loadModelDir(dir)).rejects.toThrow(`${join(dir, shard)}: tensor ${name} is not in model.safetensors.index.json's weight_map`);
      index.weight_map[name] = shardName(1, 3);
      writeJson(indexOf(dir), index);
      await expect(loadModelDir(dir)).rejects.toThrow(`${join(dir, shard)}: tensor ${name} is mapped to ${shardName(1, 3)} in model.safetensors.index.json`);
    });

    it('a tensor in two shards', async () => {
      const dir = await sharded();
      const first = decodeSafetensors(readFileSync(join(dir, shardName(1, 3))));
      const [dup, t] = Object.entries(first.tensors)[0]!;
      const last = join(dir, shardName(3, 3));
      const third = decodeSafetensors(readFileSync(last));
      writeFileSync(last, encodeSafetensors({ ...third.tensors, [dup]: t }, third.metadata, { dtype: 'BF16' }));
      await expect(loadModelDir(dir)).rejects.toThrow(`${last}: tensor ${dup} is also in ${join(dir, shardName(1, 3))}`);
    });

    it('a corrupt shard after good ones', async () => {
      const dir = await sharded();
      const last = join(dir, shardName(3, 3));
      const bytes = readFileSync(last);
      writeFileSync(last, bytes.subarray(0, bytes.length - 2));
      await expect(loadModelDir(dir)).rejects.toThrow(new RegExp(`^${last}: tensor .* fall outside the \\d+-byte data section$`));
    });

    it('a dtype other than F32, BF16, F16', async () => {
      const dir = await sharded();
      const second = join(dir, shardName(2, 3));
      const { tensors } = decodeSafetensors(readFileSync(second));
      const name = Object.keys(tensors).sort()[0]!;
      const header: Record<string, unknown> = {};
      let at = 0;
      const chunks: Uint8Array[] = [];
      for (const [k, t] of Object.entries(tensors).sort(([a], [b]) => (a < b ? -1 : 1))) {
        const raw = k === name ? new Uint8Array(t.data.length * 4) : encodeTensorBytes('BF16', t.data);
        header[k] = { dtype: k === name ? 'I32' : 'BF16', shape: t.shape, data_offsets: [at, at + raw.length] };
        at += raw.length;
        chunks.push(raw);
      }
      const h = new TextEncoder().encode(JSON.stringify(header));
      const out = new Uint8Array(8 + h.length + at);
      new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
      out.set(h, 8);
      let p = 8 + h.length;
      for (const c of chunks) {
        out.set(c, p);
        p += c.length;
      }
      writeFileSync(second, out);
      await expect(loadModelDir(dir)).rejects.toThrow(`${second}: tensor ${name}: dtype I32 is not supported (F32, BF16, F16)`);
    });

    it('a shard outside the directory', async () => {
      const dir = await sharded();
      const index = readJson(indexOf(dir)) as { weight_map: Record<string, string> };
      index.weight_map['model.norm.weight'] = '../model-00001-of-00003.safetensors';
      writeJson(indexOf(dir), index);
      await expect(loadModelDir(dir)).rejects.toThrow(
        `${indexOf(dir)}: weight_map: shard "../model-00001-of-00003.safetensors" must be a file name in the directory`,
      );
    });

    it('missing, unknown and mis-shaped tensors', async () => {
      const dir = fresh();
      await writeTinyModelDir(dir);
      const file = join(dir, 'model.safetensors');
      const { tensors, metadata } = decodeSafetensors(readFileSync(file));
      const { 'model.norm.weight': _norm, ...missing } = tensors;
      writeFileSync(file, encodeSafetensors(missing, metadata));
      await expect(loadModelDir(dir)).rejects.toThrow(`${file}: missing tensor model.norm.weight`);
      writeFileSync(file, encodeSafetensors({ ...tensors, 'model.extra.weight': { shape: [1], data: new Float32Array(1) } }, metadata));
      await expect(loadModelDir(dir)).rejects.toThrow(`${file}: unexpected tensor model.extra.weight`);
      writeFileSync(file, encodeSafetensors({ ...tensors, 'model.norm.weight': { shape: [2, 16], data: new Float32Array(32) } }, metadata));
      await expect(loadModelDir(dir)).rejects.toThrow(`${file}: tensor model.norm.weight has shape [2,16], expected [32]`);
    });

    it('a bad config.json, no weights, no directory', async () => {
      const dir = fresh();
      await writeTinyModelDir(dir);
      const configPath = join(dir, 'config.json');
      const config = readJson(configPath);
      writeJson(configPath, { ...config, rope_scaling: { rope_type: 'yarn', factor: 4 } });
      await expect(loadModelDir(dir)).rejects.toMatchObject({
        code: 'validation_failed',
        message: `${configPath}: rope_scaling.rope_type: "yarn" is not supported (default, linear, llama3)`,
      });
      writeFileSync(configPath, '{"architectures": [');
      await expect(loadModelDir(dir)).rejects.toThrow(`${configPath}: (root): not valid JSON`);
      writeJson(configPath, { ...config, vocab_size: 100 });
      await expect(loadModelDir(dir)).rejects.toThrow(`${configPath}: vocab_size: 100 is smaller than the tokenizer's ${new ByteTokenizer().vocabSize}`);
      writeJson(configPath, config);
      unlinkSync(join(dir, 'model.safetensors'));
      await expect(loadModelDir(dir)).rejects.toThrow(`${dir}: no model.safetensors or model.safetensors.index.json`);
      writeFileSync(join(dir, 'pytorch_model.bin'), 'pickle');
      await expect(loadModelDir(dir)).rejects.toThrow(
        `${dir}: no model.safetensors or model.safetensors.index.json (pytorch_model.bin is not read: save the model with safe_serialization)`,
      );
      await expect(loadModelDir(join(dir, 'nope'))).rejects.toMatchObject({ code: 'not_found' });
    });
  });
});

describe('saveModelDir', () => {
  it('writes what loadModelDir reads back bit for bit (F32), in transformers’ layout', async () => {
    const src = fresh();
    const w = { ...(await writeTinyModelDir(src, { tieEmbeddings: false, seed: 9 })), version: 'v3' };
    const dir = fresh();
    await saveModelDir(dir, w);
    expect(readdirSync(dir).sort()).toEqual([
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    const config = readJson(join(dir, 'config.json'));
    expect(config).toMatchObject({ architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', torch_dtype: 'float32', rl_policy_version: 'v3' });
    const tok = new ByteTokenizer();
    expect(readJson(join(dir, 'generation_config.json'))).toEqual({ bos_token_id: tok.bosId, eos_token_id: tok.eosId, pad_token_id: tok.padId });
    const { metadata, tensors } = decodeSafetensors(readFileSync(join(dir, 'model.safetensors')));
    expect(metadata).toEqual({ format: 'pt' });
    expect(Object.keys(tensors)).toContain('lm_head.weight');
    const back = await loadModelDir(dir);
    expectSameWeights(back, w);
    expect(back.tokenizer).toEqual(w.tokenizer);
  });

  it('writes BF16 rounded to nearest even', async () => {
    const w = await writeTinyModelDir(fresh(), { seed: 2 });
    const dir = fresh();
    await saveModelDir(dir, w, { dtype: 'BF16' });
    expect(readJson(join(dir, 'config.json'))).toMatchObject({ torch_dtype: 'bfloat16' });
    const header = readFileSync(join(dir, 'model.safetensors'));
    expect(header.toString('utf8', 8, 400)).toContain('"dtype":"BF16"');
    const back = await loadModelDir(dir);
    const rounded = Object.fromEntries(
      Object.entries(w.params).map(([k, t]) => [k, { shape: t.shape, data: decodeTensorBytes('BF16', encodeTensorBytes('BF16', t.data)) }]),
    );
    expect(bits(back.params)).toEqual(bits(rounded));
  });

  it('writes a critic as ...ForTokenClassification without lm_head', async () => {
    const w = await writeTinyModelDir(fresh(), { valueHead: true, config: { tieEmbeddings: false } });
    expect(Object.keys(w.params)).toContain('lm_head.weight');
    const dir = fresh();
    await saveModelDir(dir, w);
    expect(readJson(join(dir, 'config.json'))).toMatchObject({ architectures: ['Qwen3ForTokenClassification'], num_labels: 1, tie_word_embeddings: true });
    const back = await loadModelDir(dir);
    expect(back.config).toEqual({ ...w.config, tieEmbeddings: true });
    const { 'lm_head.weight': _lm, ...rest } = w.params;
    expect(bits(back.params)).toEqual(bits(rest));
  });

  it('replaces a model directory through a temp sibling; refuses other non-empty directories', async () => {
    const a = await writeTinyModelDir(fresh(), { seed: 1 });
    const b = await writeTinyModelDir(fresh(), { seed: 2 });
    const dir = fresh();
    await saveModelDir(dir, a);
    await saveModelDir(dir, { ...b, version: 'second' });
    expectSameWeights(await loadModelDir(dir), { ...b, version: 'second' });
    expect(readdirSync(tmp.dir).filter((f) => f.includes('.tmp-') || f.includes('.old-'))).toEqual([]);
    const other = fresh();
    await mkdir(other);
    writeFileSync(join(other, 'notes.txt'), 'keep me');
    await expect(saveModelDir(other, a)).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(join(other, 'notes.txt'), 'utf8')).toBe('keep me');
    expect(await isModelDir(dir)).toBe(true);
    expect(await isModelDir(other)).toBe(false);
    rmSync(other, { recursive: true });
    await saveModelDir(other, a);
    expect(await isModelDir(other)).toBe(true);
  });
});
