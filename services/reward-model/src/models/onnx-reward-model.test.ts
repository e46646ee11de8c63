// The ONNX backend: a tiny reward model's weights exported to a real model.onnx
// (export_onnx.py, torch.onnx, optimum's input and output names) and run on
// onnxruntime-node, its scores checked against the numpy reference forward pass
// (hf_forward.py, written from transformers' definitions) over each item
// rendered by the model's own ChatML template, read where each head reads:
// ...ForTokenClassification at the last token, ...ForSequenceClassification at
// the last non-pad token (in the graph, or here from per-token logits).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, type HostParams } from '@rl/policy';
import { afterAll, describe, expect, it } from 'vitest';
import type { ItemOutcome, ModelItem } from '../core/backend.ts';
import { loadRewardModel } from './load-reward-model.ts';
import { MODEL_ITEMS, modelItem } from './testing/items.ts';
import { exportOnnx } from './testing/onnx-export.ts';
import { referenceValues } from './testing/reference-values.ts';
import { NEWLINE_ID, writeTinyRewardModel } from './testing/tiny-reward-model.ts';

const TOLERANCE = 1e-4;
/** Exporting with torch and scoring take seconds; a loaded CI machine gets room. */
const SLOW_MS = 180_000;

const tmp = mkdtempSync(join(tmpdir(), 'rl-rm-onnx-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const never = new AbortController().signal;
// Two of one length: a graph that pools at the last position runs them together.
const ITEMS: ModelItem[] = [...MODEL_ITEMS, modelItem([{ role: 'user', content: 'Say A.' }], 'A'), modelItem([{ role: 'user', content: 'Say B.' }], 'B')];
const rendered = ITEMS.map((it) => new ByteTokenizer().applyChatTemplate([...it.messages, { role: 'assistant', content: it.response }]));

function scoresOf(outs: ItemOutcome[]): number[] {
  return outs.map((o) => {
    if (!('score' in o)) throw new Error(JSON.stringify(o));
    return o.score;
  });
}

/** A tiny reward model exported to model.onnx; `noPad` drops config.json's pad_token_id before the export. */
async function onnxDir(name: string, head: 'token' | 'sequence', output?: 'tokens' | 'pooled', noPad = false): Promise<{ dir: string; params: HostParams }> {
  const dir = join(tmp, name);
  const { params } = await writeTinyRewardModel(dir, { head });
  if (noPad) {
    const { pad_token_id: _pad, ...config } = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  }
  exportOnnx(dir, output);
  return { dir, params };
}

describe.each([
  ['token', 'default', false, 'logits [batch, seq, 1] read at the last token', (ids: number[]) => ids.length - 1],
  [
    'sequence',
    'default',
    false,
    'logits [batch, 1] pooled by the graph at the last non-pad token',
    (ids: number[]) => ids.findLastIndex((t) => t !== NEWLINE_ID),
  ],
  ['sequence', 'tokens', false, 'logits [batch, seq, 1] read here at the last non-pad token', (ids: number[]) => ids.findLastIndex((t) => t !== NEWLINE_ID)],
  ['sequence', 'pooled', true, 'no pad_token_id: logits [batch, 1] pooled by the graph at the last position', (ids: number[]) => ids.length - 1],
] as const)('an ONNX %s-classification reward model (export %s, pad id dropped: %s): %s', (head, output, noPad, _title, readAt) => {
  it(
    'scores what the numpy reference computes, in batches of rows padded to different widths',
    async () => {
      const { dir, params } = await onnxDir(`${head}-${output}-${noPad}`, head, output === 'default' ? undefined : output, noPad);
      const want = referenceValues(dir, params, rendered).map((v, i) => v[readAt(rendered[i] as number[])] as number);
      // At most three rows of <= 80 ids per run: several runs, each padded to its own longest row.
      const model = await loadRewardModel({ name: 'rm', dir, engine: 'onnx' }, { maxBatchTokens: 3 * 80, onnxThreads: 1 });
      try {
        const outs = await model.score(ITEMS, never);
        const got = scoresOf(outs);
        const worst = Math.max(...got.map((g, i) => Math.abs(g - (want[i] as number))));
        console.log(`${head} head, ${output} export, onnx: max |ours - reference| ${worst.toExponential(2)}`);
        expect(worst).toBeLessThan(TOLERANCE);
        // Scores far apart: agreement is not an accident of a head that answers ~0 everywhere.
        expect(Math.max(...want) - Math.min(...want)).toBeGreaterThan(0.05);
        expect(outs[0]?.extra).toEqual({ model: 'rm', engine: 'onnx', tokens: readAt(rendered[0] as number[]) + 1 });
      } finally {
        await model.close();
      }
    },
    SLOW_MS,
  );
});

describe('ONNX reward-model items and graphs it cannot use', () => {
  it(
    'an item longer than max_position_embeddings is its own error naming the limit; the others are scored; a closed model is not ready',
    async () => {
      const dir = join(tmp, 'short');
      await writeTinyRewardModel(dir, { head: 'token', maxSeqLen: 64 });
      exportOnnx(dir);
      const model = await loadRewardModel({ name: 'short-rm', dir, engine: 'onnx' }, { maxBatchTokens: 4096, onnxThreads: 1 });
      const out = await model.score([modelItem([], 'x'.repeat(80)), modelItem([], 'ok')], never);
      expect(out[0]).toEqual({
        error: {
          code: 'payload_too_large',
          message: expect.stringMatching(/short-rm: the conversation and response render to 93 tokens; this model reads at most 64$/),
        },
        extra: { tokens: 93, max_tokens: 64 },
      });
      expect(out[1]).toMatchObject({ score: expect.any(Number), extra: { model: 'short-rm', engine: 'onnx', tokens: 15 } });
      expect(model.ready()).toBe(true);
      await model.close();
      expect(model.ready()).toBe(false);
      expect(await model.score([modelItem([], 'ok')], never)).toEqual([
        { error: { code: 'unavailable', message: 'reward model short-rm: onnx engine: closed' } },
      ]);
    },
    SLOW_MS,
  );

  it(
    'refuses at load a token-classification model whose graph pools ([batch, 1]), and a directory without model.onnx',
    async () => {
      const { dir } = await onnxDir('token-pooled', 'token', 'pooled');
      await expect(loadRewardModel({ name: 'rm', dir, engine: 'onnx' }, { maxBatchTokens: 4096 })).rejects.toThrow(
        /model\.onnx: output logits is \[batch, labels\]: a \.\.\.ForTokenClassification reward model is read per token/,
      );
      const bare = join(tmp, 'no-onnx');
      await writeTinyRewardModel(bare, { head: 'token' });
      await expect(loadRewardModel({ name: 'rm', dir: bare, engine: 'onnx' }, { maxBatchTokens: 4096 })).rejects.toThrow(
        /no-onnx\/model\.onnx: onnxruntime cannot load it/,
      );
    },
    SLOW_MS,
  );
});
