// `rl-policy logprobs` as users run it: a real child process reading JSON
// lines on stdin, on a model directory with only config.json and the weights.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyFromWeights } from '../embedded-policy.ts';
import { loadModelDir } from '../hf/model-dir.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import { rlPolicy } from './testing/run-rl-policy.ts';

const CHILD_TIMEOUT_MS = 120_000;

let dir: string;
let modelDir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rl-policy-cli-'));
  modelDir = join(dir, 'model');
  await writeTinyModelDir(modelDir, { architecture: 'Qwen2ForCausalLM', config: { nKvHeads: 1 }, seed: 3 });
  // Scoring needs config.json and the weights only.
  for (const f of readdirSync(modelDir)) if (f !== 'config.json' && !f.endsWith('.safetensors')) rmSync(join(modelDir, f));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PAIRS = [
  { prompt: [1, 5, 9], response: [4, 4, 7, 2] },
  { prompt: [3], response: [8] },
  { prompt: [6, 2, 11, 12, 13], response: [] },
  { prompt: [2, 3, 4, 5, 6, 7, 8, 9, 10], response: [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] },
];
const line = (p: { prompt: number[]; response: number[] }) => JSON.stringify({ prompt_ids: p.prompt, response_ids: p.response });

describe('rl-policy logprobs', () => {
  it(
    'writes one line per input, the log-probs and entropies EmbeddedPolicy.score gives, in order, in batches',
    async () => {
      const input = `${line(PAIRS[0]!)}\n\n${PAIRS.slice(1).map(line).join('\r\n')}`;
      const run = await rlPolicy(['logprobs', '--model', modelDir, '--engine', 'jax', '--batch-size', '3'], input, CHILD_TIMEOUT_MS);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const out = run.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { logprobs: number[]; entropies: number[] });
      expect(out).toHaveLength(PAIRS.length);
      const policy = await policyFromWeights({ ...(await loadModelDir(modelDir, { tokenizer: false })), tokenizer: { kind: 'byte' } });
      try {
        const expected = await policy.score(PAIRS);
        out.forEach((o, i) => {
          expect(Object.keys(o)).toEqual(['logprobs', 'entropies']);
          expect(o.logprobs).toHaveLength(PAIRS[i]!.response.length);
          expect(o.entropies).toHaveLength(PAIRS[i]!.response.length);
          o.logprobs.forEach((v, t) => expect(v, `pair ${i} token ${t}`).toBeCloseTo(expected[i]!.logprobs[t]!, 5));
          o.entropies.forEach((v, t) => expect(v, `pair ${i} token ${t}`).toBeCloseTo(expected[i]!.entropy[t]!, 5));
          for (const v of o.logprobs) expect(v).toBeLessThan(0);
        });
      } finally {
        policy.dispose();
      }
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'answers the lines before a bad one, then names its line and field on stderr and exits 1',
    async () => {
      const bad = await rlPolicy(['logprobs', '--model', modelDir], `${line(PAIRS[1]!)}\n{"prompt_ids": [1, 2]}\n${line(PAIRS[0]!)}\n`, CHILD_TIMEOUT_MS);
      expect(bad.code).toBe(1);
      expect(bad.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/^rl-policy logprobs: invalid line 2: response_ids: /);
      const outside = await rlPolicy(['logprobs', '--model', modelDir], `{"prompt_ids": [1, 100000], "response_ids": [2]}\n`, CHILD_TIMEOUT_MS);
      expect(outside.code).toBe(1);
      expect(outside.stdout).toBe('');
      expect(outside.stderr).toMatch(/^rl-policy logprobs: line 1: prompt_ids\[1\]: token id 100000 is outside the model's vocabulary \(vocab_size \d+\)/);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'refuses an unknown engine (listing the engines) and a missing --model with exit status 2; a missing adapter is exit status 1',
    async () => {
      const engine = await rlPolicy(['logprobs', '--model', modelDir, '--engine', 'tpu'], '', CHILD_TIMEOUT_MS);
      expect([engine.code, engine.stderr]).toEqual([2, expect.stringMatching(/^rl-policy: --engine: unknown engine "tpu"; the engines are: jax, torch\n/)]);
      const adapter = await rlPolicy(['logprobs', '--model', modelDir, '--adapter', join(dir, 'lora')], '', CHILD_TIMEOUT_MS);
      expect([adapter.code, adapter.stderr]).toEqual([
        1,
        expect.stringMatching(/^rl-policy logprobs: .*lora: not a PEFT adapter directory \(no adapter_config\.json\)/),
      ]);
      const model = await rlPolicy(['logprobs'], '', CHILD_TIMEOUT_MS);
      expect([model.code, model.stderr]).toEqual([2, expect.stringMatching(/^rl-policy: --model DIR is required\n\nusage: rl-policy logprobs/)]);
      const missing = await rlPolicy(['logprobs', '--model', join(dir, 'nothing')], '', CHILD_TIMEOUT_MS);
      expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/^rl-policy logprobs: .*nothing: not a model directory \(no config\.json\)/)]);
    },
    CHILD_TIMEOUT_MS,
  );
});
