import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../../src/core/vector-math.ts';
import { loadOnnxEmbedder, type OnnxEmbedder } from '../../src/embed/onnx-embedder.ts';
import { DEFAULT_MODEL_PARAMS, writeDefaultModel } from './build.ts';

const COMMITTED = join(import.meta.dirname, '..', '..', 'models', 'default');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let tmp: string;
let embedder: OnnxEmbedder;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'default-model-'));
  embedder = await loadOnnxEmbedder({ modelDir: COMMITTED, intraOpThreads: 1, batchWindowMs: 0 });
});

afterAll(async () => {
  await embedder.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('build-default-model', () => {
  // A full build parses WordNet, CC-CEDICT and jieba's dictionary: about 8 s on one core.
  it('regenerates the committed files byte for byte', { timeout: 120_000 }, async () => {
    const names = await writeDefaultModel(tmp);
    expect(names.sort()).toEqual(['model.onnx', 'sentence_bert_config.json', 'tokenizer.json']);
    for (const name of names) {
      const fresh = await readFile(join(tmp, name));
      const committed = await readFile(join(COMMITTED, name));
      expect(sha256(fresh), `${name} differs from models/default: rerun scripts/build-default-model.ts`).toBe(sha256(committed));
    }
  });

  it('stays small enough to commit (the issue allows about 30 MB)', async () => {
    const model = await readFile(join(COMMITTED, 'model.onnx'));
    const tokenizer = await readFile(join(COMMITTED, 'tokenizer.json'));
    expect(model.length + tokenizer.length).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('the default model through OnnxEmbedder', () => {
  const sim = async (a: string, b: string) => {
    const [va, vb] = await embedder.embed([a, b]);
    return cosine(va!, vb!);
  };

  it('loads with the configured shape', () => {
    expect(embedder.dim).toBe(DEFAULT_MODEL_PARAMS.dim);
    expect(embedder.maxSeqLength).toBe(DEFAULT_MODEL_PARAMS.maxSeqLength);
    expect(embedder.outputKind).toBe('tokens');
  });

  it('rates sentences sharing content words above unrelated ones, in English and in Chinese', async () => {
    const anchor = 'The knight drew his sword and faced the dragon.';
    const related = await sim(anchor, 'The dragon roared as the knight raised his sword.');
    const unrelated = await sim(anchor, 'She baked bread in the small kitchen every morning.');
    expect(related).toBeGreaterThan(0.3);
    expect(Math.abs(unrelated)).toBeLessThan(0.15);
    const zh = '骑士拔出长剑，迎战巨龙。';
    const zhRelated = await sim(zh, '巨龙咆哮着，骑士举起了剑。');
    const zhUnrelated = await sim(zh, '她每天早上在小厨房里烤面包。');
    expect(zhRelated).toBeGreaterThan(0.3);
    expect(Math.abs(zhUnrelated)).toBeLessThan(0.15);
  });

  it('links words beyond exact overlap: Chinese to English through CC-CEDICT, synonyms through WordNet', async () => {
    expect(await sim('剑', 'sword')).toBeGreaterThan(0.2);
    expect(Math.abs(await sim('剑', 'bread'))).toBeLessThan(0.15);
    expect(await sim('龙怕火。', 'The dragon fears fire.')).toBeGreaterThan(0.2);
    expect(await sim('fear', 'dread')).toBeGreaterThan(0.2);
    expect(Math.abs(await sim('fear', 'table'))).toBeLessThan(0.15);
    expect(await sim('老虎', '猛虎')).toBeGreaterThan(0.1);
  });

  it('reads traditional characters as their simplified words', async () => {
    expect(await sim('我来自台湾。', '我來自台灣。')).toBeGreaterThan(0.99);
  });

  it('treats regular inflections and unknown-word suffixes as the same word', async () => {
    expect(await sim('She whispered a secret to her sister.', 'She whispers secrets to her sisters.')).toBeGreaterThan(0.9);
  });

  it('barely counts function words: sharing only them is not similarity', async () => {
    expect(Math.abs(await sim('The cat was in the house.', 'The war was in the north.'))).toBeLessThan(0.3);
    expect(Math.abs(await sim('他在家里。', '她在北方。'))).toBeLessThan(0.3);
  });

  it('word order registers, a little', async () => {
    const swapped = await sim('The dog bit the man.', 'The man bit the dog.');
    expect(swapped).toBeLessThan(0.999);
    expect(swapped).toBeGreaterThan(0.8);
  });

  it('text with no content, or only an acknowledgement, embeds to the zero vector', async () => {
    const vectors = await embedder.embed(['', '?!…', 'Okay.', '好的。', '嗯。']);
    for (const v of vectors) expect(v.every((x) => x === 0)).toBe(true);
  });

  it('gives the same vectors batched as one by one', async () => {
    const texts = ['A short one.', 'A much longer sentence about a castle, a river and a storm at night.', 'storm'];
    const batched = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embed([text]);
      for (let d = 0; d < embedder.dim; d++) expect(Math.abs(alone![d]! - batched[i]![d]!)).toBeLessThan(1e-5);
    }
  });
});
