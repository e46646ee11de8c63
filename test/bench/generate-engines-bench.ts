// Rollout generation for a worker whose actor runs on the torch engine
// (rollout.mode: embedded), per new policy version: the torch child generating
// on the weights it trains (TorchTrainer.snapshot, a TorchPolicy), against
// exporting the weights over the pipe and generating with a jax-js
// EmbeddedPolicy built from them (what the worker did before). Every row samples
// exactly MAX_TOKENS tokens (stop ids off, temperature 1).
//   node test/bench/generate-engines-bench.ts
// BENCH_ROUNDS=5 (versions per path, the paths alternating, after a first one timed apart; best and median wall
// time, tokens per CPU-second of this process and the engine child), BENCH_ROWS=64, BENCH_PROMPT=64,
// BENCH_MAX_TOKENS=96. Model: make run's (Qwen3, d=128, 3 layers, 4 heads, ff 512, vocab 560).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRng } from '@rl/service-kit';
import { createRandomPolicy, parseModelConfig, policyFromWeights } from '@rl/policy';
import { TorchTrainer } from '@rl/policy/internal';
import { ownCpuMs } from './measure.ts';
import { percentile } from './timing.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROWS = Number(process.env.BENCH_ROWS ?? 64);
const PROMPT = Number(process.env.BENCH_PROMPT ?? 64);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 96);

const config = parseModelConfig({
  architecture: 'Qwen3ForCausalLM',
  vocabSize: 560,
  dModel: 128,
  nLayers: 3,
  nHeads: 4,
  nKvHeads: 4,
  headDim: 32,
  dFF: 512,
  maxSeqLen: 256,
});
const tokenizer = { kind: 'char' as const, characters: Array.from({ length: 556 }, (_, i) => String.fromCodePoint(0x100 + i)) };
const rng = createRng(3);
const prompts = Array.from({ length: ROWS }, () => Array.from({ length: PROMPT }, () => rng.int(4, 559)));
const params = { temperature: 1, maxTokens: MAX_TOKENS, stopTokenIds: [], seed: 1 };

const initial = await createRandomPolicy({ config, tokenizer, seed: 1 });
const weights = await initial.exportWeights('v0');
initial.dispose();
const trainer = await TorchTrainer.create(weights, { lr: 1e-5 });

/** CPU ms a child process has used (utime + stime of /proc/PID/stat, in clock ticks of 10 ms). */
function childCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
const cpuMs = () => ownCpuMs() + childCpuMs(trainer.pid!);

type Path = 'torch' | 'export+jax';

/** One new version's rollout by `path`: wall and CPU ms (this process and the engine child) and the tokens generated. */
async function rollout(path: Path, version: string): Promise<{ ms: number; cpuMs: number; tokens: number }> {
  const c0 = cpuMs();
  const t0 = performance.now();
  const policy = path === 'torch' ? await trainer.snapshot(version) : await policyFromWeights(await trainer.exportWeights(version));
  const gens = await policy.generate(prompts, params);
  const ms = performance.now() - t0;
  policy.dispose();
  return { ms, cpuMs: cpuMs() - c0, tokens: gens.reduce((n, g) => n + g.tokenIds.length, 0) };
}

// The paths alternate, so a change in the machine's load falls on both.
const paths: Path[] = ['torch', 'export+jax'];
const first: Partial<Record<Path, number>> = {};
for (const p of paths) first[p] = (await rollout(p, 'first')).ms;
const runs: Record<Path, Awaited<ReturnType<typeof rollout>>[]> = { torch: [], 'export+jax': [] };
for (let i = 0; i < ROUNDS; i++) for (const p of paths) runs[p].push(await rollout(p, `v${i}`));
trainer.dispose();
const out = paths.map((path) => {
  const rs = runs[path];
  const tokens = rs[0]!.tokens;
  const ms = Math.min(...rs.map((r) => r.ms));
  const median = percentile(
    rs.map((r) => r.ms),
    50,
  );
  const cpu = Math.min(...rs.map((r) => r.cpuMs));
  return {
    path,
    rows: ROWS,
    prompt: PROMPT,
    newTokens: MAX_TOKENS,
    tokens,
    firstMs: Math.round(first[path]!),
    bestMs: Math.round(ms),
    medianMs: Math.round(median),
    tokensPerS: Math.round(tokens / (ms / 1000)),
    tokensPerCpuS: Math.round(tokens / (cpu / 1000)),
  };
});
console.log(JSON.stringify({ loadavg: loadavg().map((x) => Number(x.toFixed(2))), rows: out }, null, 2));
