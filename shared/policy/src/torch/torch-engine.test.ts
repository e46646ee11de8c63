// The PyTorch engine (a real python child process) and the jax-js engine score
// the same Hugging Face directories alike, through the engines `rl-policy`
// picks by name and through the CLI itself; a child that dies, stops
// answering or is handed a model it cannot load is a clear error, never a hang.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { engine } from '../cli/engines.ts';
import { writeTinyModelDir, type TinyModelDirOptions } from '../testing/tiny-hf-model.ts';
import { TorchEngine } from './torch-engine.ts';
import { type Run, rlPolicy } from '../cli/testing/run-rl-policy.ts';

/** Absolute difference allowed between the engines' log-probs and entropies (both fp32 on CPU). */
const TOLERANCE = 1e-4;
const SLOW_MS = 120_000;

const PAIRS = [
  { prompt: [3, 140, 15, 9, 226], response: [5, 35, 80, 9] },
  { prompt: [27, 1, 8], response: [2, 8, 180, 28, 1, 8, 255, 0] },
  { prompt: [7], response: [1] },
  { prompt: [4, 4, 2, 9, 11, 12, 13, 14, 15, 16, 17], response: [] },
  {
    prompt: [200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217],
    response: [33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44],
  },
];

const CASES: Array<[string, TinyModelDirOptions]> = [
  [
    'Llama: attention and MLP biases, 4q/2kv heads, untied head',
    { architecture: 'LlamaForCausalLM', tieEmbeddings: false, config: { attentionBias: true, mlpBias: true } },
  ],
  [
    'Llama: llama3 rope over every band, tied head',
    {
      architecture: 'LlamaForCausalLM',
      config: { ropeScaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 16 } },
    },
  ],
  ['Qwen2: q/k/v biases, one kv head', { architecture: 'Qwen2ForCausalLM', config: { nKvHeads: 1 } }],
  ['Qwen3: q/k norms, attention biases, untied head', { architecture: 'Qwen3ForCausalLM', tieEmbeddings: false, config: { attentionBias: true } }],
  [
    'Qwen3: BF16 in 3 shards, linear rope',
    { architecture: 'Qwen3ForCausalLM', dtype: 'BF16', shards: 3, config: { ropeScaling: { type: 'linear', factor: 4 } } },
  ],
];

const tmp = tempDir('rl-torch-engine-');
afterAll(() => tmp.cleanup());

describe('the torch and jax engines agree', () => {
  for (const [i, [name, options]] of CASES.entries()) {
    it(
      name,
      async () => {
        const dir = join(tmp.dir, `case${i}`);
        // scale 9: Linear weights of std ~1/sqrt(32), so the logits spread and the log-probs differ per token.
        await writeTinyModelDir(dir, { ...options, seed: 20 + i, scale: 9 });
        const [jax, torch] = [await engine('jax')(dir), await engine('torch')(dir)];
        try {
          expect([torch.vocabSize, torch.maxSeqLen]).toEqual([jax.vocabSize, jax.maxSeqLen]);
          const [a, b] = [await jax.score(PAIRS), await torch.score(PAIRS)];
          let worst = 0;
          PAIRS.forEach((pair, p) => {
            expect(b[p]!.logprobs).toHaveLength(pair.response.length);
            expect(b[p]!.entropies).toHaveLength(pair.response.length);
            pair.response.forEach((_, t) => {
              worst = Math.max(worst, Math.abs(a[p]!.logprobs[t]! - b[p]!.logprobs[t]!), Math.abs(a[p]!.entropies[t]! - b[p]!.entropies[t]!));
            });
          });
          expect(worst).toBeLessThan(TOLERANCE);
          // Not a near-uniform model, where any two engines would agree.
          const spread = b.flatMap((s) => s.logprobs);
          expect(Math.max(...spread) - Math.min(...spread)).toBeGreaterThan(1);
        } finally {
          jax.dispose();
          torch.dispose();
        }
      },
      SLOW_MS,
    );
  }
});

describe('rl-policy logprobs --engine torch', () => {
  it(
    'writes the lines --engine jax writes, within the tolerance',
    async () => {
      const dir = join(tmp.dir, 'cli');
      await writeTinyModelDir(dir, { architecture: 'Qwen3ForCausalLM', seed: 5, scale: 9 });
      const input = PAIRS.map((p) => JSON.stringify({ prompt_ids: p.prompt, response_ids: p.response })).join('\n');
      const [jax, torch] = await Promise.all(
        ['jax', 'torch'].map((e) => rlPolicy(['logprobs', '--model', dir, '--engine', e, '--batch-size', '2'], input, SLOW_MS)),
      );
      expect(torch!.stderr).toBe('');
      expect(torch!.code).toBe(0);
      const lines = (r: Run) =>
        r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as { logprobs: number[]; entropies: number[] });
      const [a, b] = [lines(jax!), lines(torch!)];
      expect(b).toHaveLength(PAIRS.length);
      b.forEach((line, p) => {
        expect(Object.keys(line)).toEqual(['logprobs', 'entropies']);
        expect(line.logprobs).toHaveLength(PAIRS[p]!.response.length);
        line.logprobs.forEach((v, t) => expect(Math.abs(v - a[p]!.logprobs[t]!)).toBeLessThan(TOLERANCE));
        line.entropies.forEach((v, t) => expect(Math.abs(v - a[p]!.entropies[t]!)).toBeLessThan(TOLERANCE));
      });
    },
    SLOW_MS,
  );

  it(
    'a directory it cannot load is an error naming the file and the key, exit status 1',
    async () => {
      const dir = join(tmp.dir, 'yarn');
      await writeTinyModelDir(dir, { architecture: 'Qwen3ForCausalLM' });
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify({ ...(JSON.parse(readFileSync(config, 'utf8')) as object), rope_scaling: { rope_type: 'yarn', factor: 4 } }));
      const run = await rlPolicy(['logprobs', '--model', dir, '--engine', 'torch'], '', SLOW_MS);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`rl-policy logprobs: torch engine: ${config}: rope_scaling.rope_type: "yarn" is not supported (default, linear, llama3)\n`);
    },
    SLOW_MS,
  );
});

describe('a failing engine child', () => {
  it(
    'refuses an unsupported architecture with validation_failed naming config.json, and keeps serving',
    async () => {
      const dir = join(tmp.dir, 'mistral');
      await writeTinyModelDir(dir, { architecture: 'LlamaForCausalLM' });
      const good = join(tmp.dir, 'good');
      const { config } = await writeTinyModelDir(good, { architecture: 'LlamaForCausalLM' });
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ architectures: ['MistralForCausalLM'], model_type: 'mistral' }));
      const child = await TorchEngine.start({ device: 'cpu' });
      try {
        const err = await child.open(dir).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('validation_failed');
        expect((err as AppError).message).toBe(`torch engine: ${join(dir, 'config.json')}: model_type: "mistral" is not supported (llama, qwen2, qwen3)`);
        expect(await child.open(good)).toEqual({
          architecture: 'LlamaForCausalLM',
          vocabSize: config.vocabSize,
          maxSeqLen: config.maxSeqLen,
          valueHead: false,
        });
      } finally {
        child.close();
      }
    },
    SLOW_MS,
  );

  it(
    'that is killed fails the pending request and every later one with unavailable, naming the signal',
    async () => {
      const dir = join(tmp.dir, 'killed');
      await writeTinyModelDir(dir, { architecture: 'Qwen2ForCausalLM' });
      const child = await TorchEngine.start({ device: 'cpu' });
      await child.open(dir);
      const pending = child.score(PAIRS);
      process.kill(child.pid as number, 'SIGKILL');
      const err = await pending.then(
        () => null,
        (e: unknown) => e,
      );
      // The kill may land after the answer was written; then the next request finds the child gone.
      const later = await child.score(PAIRS).catch((e: unknown) => e);
      for (const e of err === null ? [later] : [err, later]) {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).code).toBe('unavailable');
        expect((e as AppError).message).toMatch(/^torch engine: the child process \(.*python3\) exited \(signal SIGKILL\)/);
      }
    },
    SLOW_MS,
  );

  it('that never answers is stopped at the timeout with a timeout error', async () => {
    const err = await TorchEngine.start({ command: ['/usr/bin/python3', '-c', 'import time; time.sleep(600)'], startupTimeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('timeout');
    expect((err as AppError).message).toBe('torch engine: no answer starting within 200 ms; the child process was stopped');
  });

  it('that cannot be started is unavailable, naming the command', async () => {
    const err = await TorchEngine.start({ python: join(tmp.dir, 'no-such-python') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('unavailable');
    expect((err as AppError).message).toContain(`cannot start ${join(tmp.dir, 'no-such-python')}`);
  });
});
