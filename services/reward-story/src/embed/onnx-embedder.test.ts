import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit';
import { HUB_WORD_BASE, HUB_WORDS, hubRow, writeHubLayoutModel } from './testing/hub-layout-fixture.ts';
import { writeTinyModel } from './testing/tiny-model.ts';
import { readModelDir } from './model-dir.ts';
import { loadOnnxEmbedder, type OnnxEmbedder } from './onnx-embedder.ts';
import { createTokenEncoder } from './token-encoder.ts';

// Expected vectors by hand from TINY_TABLE ([CLS]=(1,0,0) [SEP]=(0,1,0) cat=(2,0,0)
// dog=(0,2,0) sat=(0,0,4) [UNK]=(0,0,1)); pooling is the mean over real tokens,
// and the mean's scale vanishes in normalisation, so the sum is enough.
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const CAT = unit([3, 1, 0]); // [CLS] cat [SEP]
const CAT_SAT_DOG = unit([3, 3, 4]); // [CLS] cat sat dog [SEP]
const BIRD = unit([1, 1, 1]); // [CLS] [UNK] [SEP]

function expectVector(actual: Float32Array | undefined, expected: number[]) {
  expect(actual).toBeDefined();
  expect(actual!.length).toBe(expected.length);
  expected.forEach((x, i) => expect(actual![i]).toBeCloseTo(x, 6));
}

let root: string;
let tokens: OnnxEmbedder;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tiny-embedder-'));
  await writeTinyModel(join(root, 'tiny-tokens'), 'tokens');
  tokens = await loadOnnxEmbedder({ modelDir: join(root, 'tiny-tokens'), intraOpThreads: 1, batchWindowMs: 0 });
});

afterAll(async () => {
  await tokens.close();
  await rm(root, { recursive: true, force: true });
});

describe('loadOnnxEmbedder on a hand-built graph', () => {
  it('reports the model and its limits', () => {
    expect(tokens.modelId).toBe('tiny-tokens');
    expect(tokens.dim).toBe(3);
    expect(tokens.outputKind).toBe('tokens');
    expect(tokens.maxSeqLength).toBe(128); // from tokenizer.json truncation: no sentence_bert_config.json
  });

  it('mean-pools the token states over the attention mask and L2-normalises', async () => {
    const [cat, long, bird] = await tokens.embed(['cat', 'Cat  SAT, dog', 'bird']);
    expectVector(cat, CAT);
    expectVector(bird, BIRD);
    // ',' is not in the vocabulary: it becomes [UNK] and adds (0,0,1).
    expectVector(long, unit([3, 3, 5]));
  });

  it('padding never reaches a shorter text: batched equals one by one', async () => {
    const texts = ['cat', 'cat sat dog', 'dog dog dog dog dog dog', ''];
    const batched = await tokens.embed(texts);
    expectVector(batched[0], CAT);
    expectVector(batched[1], CAT_SAT_DOG);
    for (const [i, text] of texts.entries()) {
      const [alone] = await tokens.embed([text]);
      for (let d = 0; d < 3; d++) expect(Math.abs(alone![d]! - batched[i]![d]!)).toBeLessThan(1e-5);
    }
  });

  it('returns copies: changing a result does not change the next one', async () => {
    const [first] = await tokens.embed(['dog']);
    first!.fill(0);
    const [second] = await tokens.embed(['dog']);
    expectVector(second, unit([1, 3, 0]));
  });

  it('truncates to max_seq_length from sentence_bert_config.json, keeping [CLS] and [SEP]', async () => {
    const dir = join(root, 'tiny-short');
    await writeTinyModel(dir, 'tokens', 4);
    const short = await loadOnnxEmbedder({ modelDir: dir, intraOpThreads: 1 });
    try {
      expect(short.maxSeqLength).toBe(4);
      const [v] = await short.embed(['cat sat dog']); // [CLS] cat sat [SEP]
      expectVector(v, unit([3, 1, 4]));
    } finally {
      await short.close();
    }
  });

  it('reads an already pooled sentence_embedding output (int32 ids)', async () => {
    const dir = join(root, 'tiny-pooled');
    await writeTinyModel(dir, 'pooled');
    const pooled = await loadOnnxEmbedder({ modelDir: dir, intraOpThreads: 1 });
    try {
      expect(pooled.outputKind).toBe('pooled');
      const [cat] = await pooled.embed(['cat']);
      expectVector(cat, CAT);
      // A pooled export has no token states to give.
      expect(pooled.embedTokens).toBeUndefined();
    } finally {
      await pooled.close();
    }
  });

  it('an aborted signal rejects before any work', async () => {
    const reason = new Error('gone');
    await expect(tokens.embed(['cat'], { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(tokens.embedTokens!(['cat'], { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('gives each text its content tokens’ raw states: no [CLS], [SEP] or padding, in text order', async () => {
    const states = await tokens.embedTokens!(['cat sat dog', 'dog', 'bird', '']);
    expect(states.map((s) => s.map((v) => [...v]))).toEqual([
      [
        [2, 0, 0],
        [0, 0, 4],
        [0, 2, 0],
      ],
      [[0, 2, 0]],
      [[0, 0, 1]],
      [],
    ]);
  });

  it('runs token states in chunks of maxBatch, in order', async () => {
    const dir = join(root, 'tiny-tokens');
    const small = await loadOnnxEmbedder({ modelDir: dir, intraOpThreads: 1, maxBatch: 2 });
    try {
      const states = await small.embedTokens!(['cat', 'dog', 'sat', 'cat dog']);
      expect(states.map((s) => s.length)).toEqual([1, 1, 1, 2]);
      expect([...states[2]![0]!]).toEqual([0, 0, 4]);
    } finally {
      await small.close();
    }
  });
});

describe('a model directory laid out like all-MiniLM-L6-v2 on the Hub', () => {
  const hubId = (word: (typeof HUB_WORDS)[number]) => HUB_WORD_BASE + HUB_WORDS.indexOf(word);
  let dirPath: string;

  beforeAll(async () => {
    dirPath = join(root, 'all-MiniLM-L6-v2');
    await writeHubLayoutModel(dirPath);
  });

  it('finds onnx/model.onnx, takes 256 from sentence_bert_config.json over the tokenizer’s 128', async () => {
    const dir = await readModelDir(dirPath);
    expect(dir.modelPath).toBe(join(dirPath, 'onnx', 'model.onnx'));
    expect(dir.maxSeqLength).toBe(256);
    expect(dir.maxSeqLengthSource).toBe('sentence_bert_config.json');

    const encoder = createTokenEncoder(dir.tokenizerJson, dir.tokenizerConfig, dir.maxSeqLength);
    expect(encoder.encode('The cat')).toEqual([101, hubId('the'), hubId('cat'), 102]);
    // Pads to the longest text of the batch, not to the tokenizer.json's fixed 128.
    expect(encoder.encodeBatch(['cat', 'the cat sat']).seqLen).toBe(5);
    const long = encoder.encode('the cat sat on the mat '.repeat(60)); // 360 words
    expect(long).toHaveLength(256);
    expect([long[0], long[255]]).toEqual([101, 102]);
  });

  it('embeds with all three BERT inputs, mean pooling over real tokens only', async () => {
    const embedder = await loadOnnxEmbedder({ modelDir: dirPath, intraOpThreads: 1, batchWindowMs: 0 });
    try {
      expect(embedder.modelId).toBe('all-MiniLM-L6-v2');
      expect(embedder.dim).toBe(4);
      const [cat, longer] = await embedder.embed(['cat', 'the dog ran on the mat']);
      const sum = [101, hubId('cat'), 102].map(hubRow).reduce<number[]>((a, r) => a.map((x, i) => x + r[i]!), [0, 0, 0, 0]);
      expectVector(cat, unit(sum));
      const [alone] = await embedder.embed(['the dog ran on the mat']);
      for (let d = 0; d < 4; d++) expect(Math.abs(alone![d]! - longer![d]!)).toBeLessThan(1e-5);
    } finally {
      await embedder.close();
    }
  });
});

describe('model directory problems', () => {
  async function loadError(modelDir: string): Promise<AppError> {
    const err: unknown = await loadOnnxEmbedder({ modelDir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }

  it('a missing directory is an unavailable error naming it', async () => {
    const err = await loadError(join(root, 'nope'));
    expect(err.code).toBe(ErrorCode.Unavailable);
    expect(err.details).toMatchObject({ modelDir: join(root, 'nope') });
  });

  it('a directory without tokenizer.json names the missing file', async () => {
    const dir = join(root, 'no-tokenizer');
    await writeTinyModel(dir, 'tokens');
    await unlink(join(dir, 'tokenizer.json'));
    const err = await loadError(dir);
    expect(err.code).toBe(ErrorCode.Unavailable);
    expect(err.details).toMatchObject({ missing: ['tokenizer.json'] });
  });

  it('a directory without model.onnx names the missing file', async () => {
    const dir = join(root, 'no-model');
    await writeTinyModel(dir, 'tokens');
    await unlink(join(dir, 'model.onnx'));
    const err = await loadError(dir);
    expect(err.details).toMatchObject({ missing: ['model.onnx'] });
  });
});
