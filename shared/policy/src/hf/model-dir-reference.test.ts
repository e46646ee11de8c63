// A sharded BF16 / F16 model directory, loaded by loadModelDir and run by the
// engine, gives the log-probs that the numpy reference (model/reference/
// hf_forward.py, written from transformers' definitions) computes from the same
// rounded weights and the directory's own config.json.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@rl/datasets/testing';
import { policyFromWeights } from '../embedded-policy.ts';
import { writeTinyModelDir, type TinyModelDirOptions } from '../testing/tiny-hf-model.ts';
import { encodeSafetensors } from '../weights/safetensors.ts';
import { loadModelDir } from './model-dir.ts';

const REFERENCE = join(dirname(fileURLToPath(import.meta.url)), '..', 'model', 'reference', 'hf_forward.py');
const TOLERANCE = 1e-4;
const PAIRS = [
  { prompt: [3, 140, 15, 9, 226], response: [5, 35, 80, 9] },
  { prompt: [27, 1, 8], response: [2, 8, 180, 28, 1, 8] },
];

const tmp = tempDir('rl-model-dir-ref-');
afterAll(() => tmp.cleanup());

function logSoftmaxAt(row: readonly number[], token: number): number {
  const max = Math.max(...row);
  return (row[token] as number) - max - Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
}

const CASES: Array<[string, TinyModelDirOptions]> = [
  [
    'Qwen3, BF16 in 3 shards (q/k norms, attention biases, 4q/2kv, untied head)',
    { architecture: 'Qwen3ForCausalLM', dtype: 'BF16', shards: 3, tieEmbeddings: false, config: { attentionBias: true } },
  ],
  [
    'Llama, F16 in 2 shards (llama3 rope over every band, tied head)',
    {
      architecture: 'LlamaForCausalLM',
      dtype: 'F16',
      shards: 2,
      config: { nHeads: 4, headDim: 8, ropeScaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 1024 } },
    },
  ],
  ['Qwen2, BF16 single file (q/k/v biases)', { architecture: 'Qwen2ForCausalLM', dtype: 'BF16' }],
];

describe('a loaded HF directory computes what the numpy reference computes from the same rounded weights', () => {
  for (const [name, options] of CASES) {
    it(name, async () => {
      const dir = join(tmp.dir, name.split(',')[0] as string);
      const written = await writeTinyModelDir(dir, { ...options, seed: 11, scale: 9 });
      const loaded = await loadModelDir(dir);
      expect(loaded.config).toEqual(written.config);
      for (const [k, t] of Object.entries(written.params)) expect(Array.from(loaded.params[k]!.data), k).toEqual(Array.from(t.data));
      // The reference reads F32: the rounded values the directory holds, widened exactly.
      const f32 = join(tmp.dir, 'reference.safetensors');
      const request = join(tmp.dir, 'request.json');
      writeFileSync(f32, encodeSafetensors(written.params));
      writeFileSync(
        request,
        JSON.stringify({ config: JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')), sequences: PAIRS.map((p) => [...p.prompt, ...p.response]) }),
      );
      const ref = JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE, f32, request], { encoding: 'utf8', timeout: 60_000 })) as { logits: number[][][] };
      const policy = await policyFromWeights(loaded);
      try {
        const ours = await policy.logprobs(PAIRS);
        let worst = 0;
        PAIRS.forEach((p, r) => {
          p.response.forEach((tok, j) => {
            const want = logSoftmaxAt(ref.logits[r]![p.prompt.length - 1 + j]!, tok);
            worst = Math.max(worst, Math.abs((ours[r]![j] as number) - want));
          });
        });
        console.log(`${name}: max |ours - reference| log-prob ${worst.toExponential(2)}`);
        expect(worst).toBeLessThan(TOLERANCE);
        // Weights of order 1: the log-probs are far from uniform, so agreement is not an accident of tiny logits.
        const spread = Math.max(...ref.logits[0]![0]!) - Math.min(...ref.logits[0]![0]!);
        expect(spread).toBeGreaterThan(1);
      } finally {
        policy.dispose();
      }
    });
  }
});
