// A tiny reward model's scores, on the embedded jax-js engine and on the
// PyTorch engine child, against the numpy reference forward pass
// (shared/policy/src/model/reference/hf_forward.py, written from transformers'
// definitions) over the same conversation rendered by the model's own ChatML
// template: verl's ...ForTokenClassification read at the last token,
// ...ForSequenceClassification at the last token that is not pad_token_id.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer } from '@rl/policy';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRewardModel } from './load-reward-model.ts';
import { MODEL_ITEMS, modelItem } from './testing/items.ts';
import { referenceValues } from './testing/reference-values.ts';
import { NEWLINE_ID, writeTinyRewardModel } from './testing/tiny-reward-model.ts';
import type { TrainedRewardModel } from './trained-reward-model.ts';

const TOLERANCE = 1e-4;
/** Engine children start and score within this on a loaded CI machine. */
const SLOW_MS = 180_000;

const tmp = mkdtempSync(join(tmpdir(), 'rl-reward-model-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ITEMS = MODEL_ITEMS;

const tokenizer = new ByteTokenizer();
const rendered = ITEMS.map((it) => tokenizer.applyChatTemplate([...it.messages, { role: 'assistant', content: it.response }]));

async function scoresOf(model: TrainedRewardModel): Promise<number[]> {
  try {
    const out = await model.score(ITEMS, new AbortController().signal);
    return out.map((o) => {
      if (!('score' in o)) throw new Error(JSON.stringify(o));
      return o.score;
    });
  } finally {
    await model.close();
  }
}

describe.each([
  ['token', 'Qwen3ForTokenClassification: read at the last token', (ids: number[]) => ids.length - 1],
  ['sequence', 'Qwen3ForSequenceClassification: read at the last non-pad token', (ids: number[]) => ids.findLastIndex((t) => t !== NEWLINE_ID)],
] as const)('a tiny %s-classification reward model', (head, _title, readAt) => {
  const dir = join(tmp, head);
  const written = writeTinyRewardModel(dir, { head });
  // Rendered with the ChatML template, every sequence ends `<|im_end|>\n`: the two heads read different tokens.
  it('reads a different token per head (the renders end with a newline)', () => {
    for (const ids of rendered) expect(ids.at(-1)).toBe(NEWLINE_ID);
  });

  for (const engine of ['jax', 'torch'] as const) {
    it(
      `scores on the ${engine} engine what the numpy reference computes`,
      async () => {
        const { params } = await written;
        const want = referenceValues(dir, params, rendered).map((v, i) => v[readAt(rendered[i] as number[])] as number);
        // Batches of at most two items: more than one engine call, rows padded to different widths.
        const model = await loadRewardModel({ name: 'rm', dir, engine }, { maxBatchTokens: 2 * 80, torchDevice: 'cpu' });
        const got = await scoresOf(model);
        const worst = Math.max(...got.map((g, i) => Math.abs(g - (want[i] as number))));
        console.log(`${head} head on ${engine}: scores ${got.map((g) => g.toFixed(4)).join(', ')}; max |ours - reference| ${worst.toExponential(2)}`);
        expect(worst).toBeLessThan(TOLERANCE);
        // Scores far apart: agreement is not an accident of a head that answers ~0 everywhere.
        expect(Math.max(...want) - Math.min(...want)).toBeGreaterThan(0.05);
      },
      SLOW_MS,
    );
  }
});

describe('reward-model items that cannot be scored', () => {
  it('an item longer than the model reads is its own error naming the limit; the others are scored', async () => {
    const dir = join(tmp, 'short');
    await writeTinyRewardModel(dir, { head: 'token', maxSeqLen: 64 });
    const model = await loadRewardModel({ name: 'short-rm', dir, engine: 'jax' }, { maxBatchTokens: 4096 });
    try {
      const out = await model.score([modelItem([], 'x'.repeat(80)), modelItem([], 'ok')], new AbortController().signal);
      expect(out[0]).toEqual({
        error: {
          code: 'payload_too_large',
          message: expect.stringMatching(/short-rm: the conversation and response render to 93 tokens; this model reads at most 63$/),
        },
        extra: { tokens: 93, max_tokens: 63 },
      });
      expect(out[1]).toMatchObject({ score: expect.any(Number), extra: { model: 'short-rm', engine: 'jax', tokens: 15 } });
    } finally {
      await model.close();
    }
  });

  it('an aborted request leaves its items as timeout errors, never scores', async () => {
    const dir = join(tmp, 'token');
    await writeTinyRewardModel(dir, { head: 'token' });
    const model = await loadRewardModel({ name: 'rm', dir, engine: 'jax' }, { maxBatchTokens: 4096 });
    try {
      const ac = new AbortController();
      ac.abort();
      const out = await model.score(ITEMS.slice(0, 2), ac.signal);
      for (const o of out) expect(o).toMatchObject({ error: { code: 'timeout' } });
    } finally {
      await model.close();
    }
  });

  it(
    'once the PyTorch engine child is gone the model is not ready and its items are unavailable, not scores',
    async () => {
      const dir = join(tmp, 'token');
      await writeTinyRewardModel(dir, { head: 'token' });
      const model = await loadRewardModel({ name: 'rm', dir, engine: 'torch' }, { maxBatchTokens: 4096, torchDevice: 'cpu' });
      expect(model.ready()).toBe(true);
      await model.close();
      expect(model.ready()).toBe(false);
      const out = await model.score(ITEMS.slice(0, 2), new AbortController().signal);
      for (const o of out) expect(o).toEqual({ error: { code: 'unavailable', message: 'reward model rm: torch engine: closed' } });
    },
    SLOW_MS,
  );

  it('a causal LM directory is refused at load, naming architectures[0]', async () => {
    const { writeTinyModelDir } = await import('@rl/policy/testing');
    const dir = join(tmp, 'lm');
    await writeTinyModelDir(dir);
    await expect(loadRewardModel({ name: 'lm', dir, engine: 'jax' }, { maxBatchTokens: 4096 })).rejects.toThrow(
      /config\.json: architectures\[0\]: "Qwen3ForCausalLM" is not a reward model/,
    );
  });
});
