// The GPU check (infra/gpu/check.sh) in its --smoke mode on this machine's Debian
// python3 with torch: tiny sizes on the CPU, the transformers rows skipped where
// transformers is missing. It must run to the end, print its summary and write its
// JSON; and its FLOP count (rl_torch_engine.bench) must be flops.ts's.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { scoreFlops, trainFlops } from '@rl/policy/internal';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.ts';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

function hasTorch(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

interface PassRow {
  pass: string;
  best_ms: number;
  tokens_per_s: number;
  mfu: number;
}
interface Report {
  smoke: boolean;
  parity: Array<{ architecture: string; fp32_ok: boolean }> | null;
  serve: {
    ok: boolean;
    full_mean_logprob_by_step: number[];
    saved_equals_weights_op: boolean;
    generate: { greedy_tokens_equal_cpu_fp32: number; seeded_sampling_reproduces: boolean };
  };
  throughput: {
    model: Record<
      'hidden_size' | 'num_hidden_layers' | 'num_attention_heads' | 'num_key_value_heads' | 'head_dim' | 'intermediate_size' | 'vocab_size',
      number
    >;
    sizes: { rows: number; prompt: number; response: number };
    flops: { score: number; update: number };
    rows: PassRow[];
  };
}

const out = mkdtempSync(join(tmpdir(), 'rl-gpu-check-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe.skipIf(!hasTorch())('infra/gpu/check.sh --smoke', () => {
  it('runs every pass and the served engine on the CPU, prints the summary and writes gpu-check.json', { timeout: 180_000 }, async () => {
    const { stdout } = await run(join(ROOT, 'infra/gpu/check.sh'), [out, '--smoke'], { env: { ...process.env, PYTHON }, timeout: 170_000 });
    expect(stdout).toMatch(/rl_torch_engine GPU check \(smoke\)/);
    expect(stdout).toMatch(/where one update micro-batch spends its time/);
    const report = JSON.parse(readFileSync(join(out, 'gpu-check.json'), 'utf8')) as Report;
    expect(report.smoke).toBe(true);
    expect(report.throughput.rows.map((r) => r.pass)).toEqual([
      'log-prob',
      'update',
      'update, gradient checkpointing',
      'generate 4 x 8 new tokens (eager, tokens/s = new tokens)',
      'update, LoRA r=16',
    ]);
    for (const row of report.throughput.rows) {
      expect(row.best_ms, row.pass).toBeGreaterThan(0);
      expect(row.tokens_per_s, row.pass).toBeGreaterThan(0);
      // Generation counts tokens, not FLOPs.
      if (!row.pass.startsWith('generate')) expect(row.mfu, row.pass).toBeGreaterThan(0);
    }
    for (const row of report.parity ?? []) expect(row.fp32_ok, row.architecture).toBe(true);
    // The engine as the worker runs it: trains, saves what it serves, and LoRA trains and exports.
    expect(report.serve.ok, JSON.stringify(report.serve)).toBe(true);
    expect(report.serve.saved_equals_weights_op).toBe(true);
    expect(report.serve.generate).toMatchObject({ greedy_tokens_equal_cpu_fp32: 1, seeded_sampling_reproduces: true });

    const m = report.throughput.model;
    const { rows, prompt, response } = report.throughput.sizes;
    const shape = {
      vocabSize: m.vocab_size,
      dModel: m.hidden_size,
      nLayers: m.num_hidden_layers,
      dFF: m.intermediate_size,
      nHeads: m.num_attention_heads,
      nKvHeads: m.num_key_value_heads,
      headDim: m.head_dim,
    };
    expect(report.throughput.flops.score).toBe(scoreFlops(shape, rows, prompt, response));
    expect(report.throughput.flops.update).toBe(trainFlops(shape, rows, prompt, response));
  });
});
