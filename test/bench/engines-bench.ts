// Both policy engines on this machine: each runtime's fp32 matmul peak (torch with
// its BLAS, in a child Python; jax-js's wasm jit, one thread), then the log-prob
// pass (score) and the update pass (accumulate + AdamW step) of each engine through
// the TrainingEngine surface the policy worker holds: PolicyTrainer (jax-js, in
// process) and TorchTrainer (the torch child process, its binary frames and the
// loss computed here on the leaves it answers).
//   node test/bench/engines-bench.ts        (part of make bench)
// BENCH_SECONDS=2 (timed seconds per row, at least 3 calls after a first one timed apart),
// BENCH_MODELS=demo,d512, BENCH_ENGINES=jax,torch, BENCH_TORCH_THREADS=2 (the child's
// torch threads; OpenBLAS runs its own), BENCH_OUT=.run/bench/engines.json.
// Models (Qwen3, vocab 560 like the demo's BPE): `demo` is make run's (d=128, 2 layers,
// 4 heads, ff 512) at 64 sequences of 64 + 32 tokens (a GRPO mini-batch); `d512` is
// 4 layers, d=512, 8 heads, ff 2048 at 32 sequences of 64 + 64 tokens. Widths are the
// jax-js engine's buckets, so both engines compute the same shapes and are counted the
// same FLOPs (shared/policy/src/model/flops.ts; update = forward + 2x backward).
// The boundary's share is the torch update's wall time spent outside the child's own
// time per request (frames, pipe, waiting), from TorchTrainer.boundaryCosts(); the
// loss's share is the time between requests (lossOnLeaves here).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRng } from '@rl/service-kit';
import {
  PolicyTrainer,
  createRandomPolicy,
  ensureTensorBackend,
  np,
  parseModelConfig,
  type ModelConfig,
  type PolicyLoss,
  type PolicyWeights,
  type TrainingEngine,
} from '@rl/policy';
import { scoreFlops, TorchTrainer, trainFlops } from '@rl/policy/internal';
import { jaxMatmul, type MatmulShape, measure, ownCpuMs } from './measure.ts';

const ROOT = join(import.meta.dirname, '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const MODELS = (process.env.BENCH_MODELS ?? 'demo,d512').split(',');
const ENGINES = (process.env.BENCH_ENGINES ?? 'jax,torch').split(',');
const TORCH_THREADS = Number(process.env.BENCH_TORCH_THREADS ?? 2);
const OUT = process.env.BENCH_OUT ?? join(ROOT, '.run/bench/engines.json');
const PYTHON = process.env.RL_TORCH_PYTHON ?? '/usr/bin/python3';

interface Workload {
  name: string;
  config: ModelConfig;
  rows: number;
  /** Rows per accumulate call of the update (the worker's ppo_micro_batch_size_per_gpu), the same for both engines. */
  microRows: number;
  prompt: number;
  response: number;
}
const qwen3 = (dModel: number, nLayers: number, nHeads: number, dFF: number) =>
  parseModelConfig({
    architecture: 'Qwen3ForCausalLM',
    vocabSize: 560,
    dModel,
    nLayers,
    nHeads,
    nKvHeads: nHeads,
    headDim: dModel / nHeads,
    dFF,
    maxSeqLen: 256,
  });
const WORKLOADS: Record<string, Workload> = {
  demo: { name: 'demo', config: qwen3(128, 2, 4, 512), rows: 64, microRows: 64, prompt: 64, response: 32 },
  // Two micro-batches: jax-js's 4 GiB of wasm memory does not hold this update's 32 rows at once.
  d512: { name: 'd512', config: qwen3(512, 4, 8, 2048), rows: 32, microRows: 16, prompt: 64, response: 64 },
};

// The child inherits this: torch's intra-op threads (the elementwise work; OpenBLAS sizes its own pool).
process.env.OMP_NUM_THREADS = String(TORCH_THREADS);
await ensureTensorBackend({ threads: 0 });

/** The torch side's fp32 matmul peak (rl_torch_engine.bench peak) over the same shapes. */
interface Peak {
  gflops: number;
  /** By CPU time (all threads): FLOPs per CPU-second. */
  cpuGflops: number;
  shape: MatmulShape;
}

function torchPeak(shapes: MatmulShape[]): Peak & { threads: number } {
  const args = [
    '-m',
    'rl_torch_engine.bench',
    'peak',
    '--threads',
    String(TORCH_THREADS),
    '--seconds',
    String(SECONDS),
    '--shapes',
    shapes.map((s) => s.join('x')).join(','),
  ];
  const stdout = execFileSync(PYTHON, args, { cwd: join(ROOT, 'shared/python'), encoding: 'utf8', timeout: 600_000 });
  const out = JSON.parse(stdout) as { threads: number; peak: { gflops: number; cpu_gflops: number; shape: MatmulShape } };
  return { gflops: out.peak.gflops, cpuGflops: out.peak.cpu_gflops, shape: out.peak.shape, threads: out.threads };
}

async function jaxPeak(shapes: MatmulShape[]): Promise<Peak> {
  let best: Peak = { gflops: 0, cpuGflops: 0, shape: shapes[0]! };
  for (const shape of shapes) {
    const m = await jaxMatmul(shape, SECONDS);
    best = { ...(m.gflops > best.gflops ? { gflops: m.gflops, shape } : best), cpuGflops: Math.max(best.cpuGflops, m.cpuGflops) };
  }
  return best;
}

/** CPU ms a child process has used (utime + stime of /proc/PID/stat, in clock ticks of 10 ms). */
function childCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A square and the d512 model's projection shapes at its token count. */
const PEAK_SHAPES: MatmulShape[] = [
  [1024, 1024, 1024],
  [4096, 512, 2048],
  [4096, 2048, 512],
  [4096, 512, 512],
];

// verl's clipped PPO objective (token-mean), written once in jax-js: both engines train on it.
const ppo: PolicyLoss = (t) => {
  const ratio = np.exp(t.logprobs.sub(t.input('old_logprobs')));
  const adv = t.input('advantages');
  const pg = np.maximum(ratio.ref.mul(adv.ref).mul(-1), np.clip(ratio, 0.8, 1.28).mul(adv).mul(-1));
  const mask = t.mask;
  return { loss: np.sum(pg.mul(mask.ref)).div(np.sum(mask)) };
};

interface Row {
  model: string;
  engine: string;
  pass: 'log-prob' | 'update';
  tokens: number;
  ms: number;
  medianMs: number;
  firstMs: number;
  tokensPerS: number;
  gflops: number;
  shareOfPeak: number;
  /** FLOPs per CPU-second (this process and the engine child) against the runtime's matmul peak per CPU-second. */
  cpuShareOfPeak: number;
  boundaryShare?: number;
  lossShare?: number;
}

/** A char vocabulary of `size` ids (4 specials + characters from U+0100): the ids are random anyway. */
function charTokenizer(size: number) {
  return { kind: 'char' as const, characters: Array.from({ length: size - 4 }, (_, i) => String.fromCodePoint(0x100 + i)) };
}

async function startEngine(engine: string, weights: PolicyWeights, w: Workload): Promise<TrainingEngine & { dispose(): void }> {
  const optimizer = { lr: 1e-5 };
  if (engine === 'jax') return PolicyTrainer.create(weights, optimizer);
  if (engine === 'torch') return TorchTrainer.create(weights, optimizer, { device: 'cpu', maxTokens: w.rows * (w.prompt + w.response) });
  throw new Error(`BENCH_ENGINES: unknown engine ${engine} (jax, torch)`);
}

async function benchWorkload(w: Workload, peaks: Record<string, Peak>): Promise<Row[]> {
  const rng = createRng(7);
  const ids = (n: number) => Array.from({ length: n }, () => rng.int(0, w.config.vocabSize - 1));
  const pairs = Array.from({ length: w.rows }, () => ({ prompt: ids(w.prompt), response: ids(w.response) }));
  const policy = await createRandomPolicy({ config: w.config, tokenizer: charTokenizer(w.config.vocabSize), seed: 1 }, { maxBatchSize: w.rows });
  const weights = await policy.exportWeights();
  const oldLogprobs = await policy.logprobs(pairs);
  policy.dispose();
  const batch = { pairs, inputs: { old_logprobs: oldLogprobs, advantages: pairs.map((p) => Float32Array.from(p.response, () => rng.next() * 2 - 1)) } };
  const micros = Array.from({ length: Math.ceil(w.rows / w.microRows) }, (_, i) => {
    const part = <T>(xs: T[]) => xs.slice(i * w.microRows, (i + 1) * w.microRows);
    return { pairs: part(batch.pairs), inputs: { old_logprobs: part(batch.inputs.old_logprobs), advantages: part(batch.inputs.advantages) } };
  });
  const tokens = w.rows * (w.prompt + w.response);
  const flops = { 'log-prob': scoreFlops(w.config, w.rows, w.prompt, w.response), update: trainFlops(w.config, w.rows, w.prompt, w.response) };
  const rows: Row[] = [];
  for (const engineName of ENGINES) {
    const engine = await startEngine(engineName, weights, w);
    try {
      const passes: Array<[Row['pass'], () => Promise<unknown>]> = [
        ['log-prob', () => engine.score(pairs)],
        [
          'update',
          async () => {
            for (const micro of micros) await engine.accumulate(micro, ppo, micro.pairs.length / w.rows);
            await engine.applyGradients();
          },
        ],
      ];
      const pid = engine instanceof TorchTrainer ? engine.pid : undefined;
      const cpuClock = pid === undefined ? ownCpuMs : () => ownCpuMs() + childCpuMs(pid);
      for (const [pass, run] of passes) {
        const before = engine instanceof TorchTrainer ? engine.boundaryCosts() : {};
        let callsMs = 0;
        const timed = async () => {
          const t = performance.now();
          await run();
          callsMs += performance.now() - t;
        };
        const r = await measure(timed, SECONDS, cpuClock).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        if (r instanceof Error) {
          // One pass that fails (jax-js past its 4 GiB of wasm memory, say) is a line of the report, not the end of it.
          failures.push(`${w.name}, ${engineName}, ${pass}: ${r.message}`);
          process.stderr.write(`failed: ${failures.at(-1)}\n`);
          continue;
        }
        const gflops = flops[pass] / r.ms / 1e6;
        const row: Row = {
          model: w.name,
          engine: engineName,
          pass,
          tokens,
          ms: r.ms,
          medianMs: r.medianMs,
          firstMs: r.firstMs,
          tokensPerS: tokens / (r.ms / 1e3),
          gflops,
          shareOfPeak: gflops / (peaks[engineName]?.gflops ?? Number.NaN),
          cpuShareOfPeak: flops[pass] / r.cpuMs / 1e6 / (peaks[engineName]?.cpuGflops ?? Number.NaN),
        };
        if (engine instanceof TorchTrainer) Object.assign(row, boundaryShares(before, engine.boundaryCosts(), callsMs));
        rows.push(row);
        process.stderr.write(`${line(cells(row))}\n`);
      }
    } finally {
      engine.dispose();
    }
  }
  return rows;
}

type Costs = ReturnType<TorchTrainer['boundaryCosts']>;

/**
 * Shares of the calls' time `callsMs` over the requests made between two readings: outside the child while a request
 * was out (frames, pipe, waking), and here between requests (the loss on the leaves, batching).
 */
function boundaryShares(before: Costs, after: Costs, callsMs: number): { boundaryShare: number; lossShare: number } {
  let wall = 0;
  let engine = 0;
  for (const [op, c] of Object.entries(after)) {
    wall += c.wallMs - (before[op]?.wallMs ?? 0);
    engine += c.engineMs - (before[op]?.engineMs ?? 0);
  }
  return { boundaryShare: (wall - engine) / callsMs, lossShare: (callsMs - wall) / callsMs };
}

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '' : `${(100 * x).toFixed(1)}%`);
const HEADER = [
  'model',
  'engine',
  'pass',
  'tokens',
  'ms (best)',
  'ms (median)',
  'tokens/s',
  'GFLOP/s',
  '% of peak',
  '% of peak (CPU time)',
  'boundary',
  'loss here',
  'first call ms',
];
function cells(r: Row): string[] {
  return [
    r.model,
    r.engine,
    r.pass,
    String(r.tokens),
    r.ms.toFixed(0),
    r.medianMs.toFixed(0),
    r.tokensPerS.toFixed(0),
    r.gflops.toFixed(1),
    pct(r.shareOfPeak),
    pct(r.cpuShareOfPeak),
    pct(r.boundaryShare),
    pct(r.lossShare),
    r.firstMs.toFixed(0),
  ];
}
function line(c: string[]): string {
  return c.join(' | ');
}

const load = loadavg();
const torch = ENGINES.includes('torch') ? torchPeak(PEAK_SHAPES) : undefined;
const jax = ENGINES.includes('jax') ? await jaxPeak(PEAK_SHAPES) : undefined;
const peaks: Record<string, Peak> = { ...(jax && { jax }), ...(torch && { torch }) };
const rows: Row[] = [];
const failures: string[] = [];
for (const name of MODELS) {
  const w = WORKLOADS[name];
  if (w === undefined) throw new Error(`BENCH_MODELS: unknown model ${name} (${Object.keys(WORKLOADS).join(', ')})`);
  rows.push(...(await benchWorkload(w, peaks)));
}
const table = rows.map(cells);
const widths = HEADER.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
const pad = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join(' | ');
process.stdout.write(
  `engines: fp32 matmul peak ${torch ? `torch ${torch.gflops.toFixed(1)} GFLOP/s, ${torch.cpuGflops.toFixed(1)} per CPU-second (${torch.shape.join('x')}, ${torch.threads} torch threads, ${PYTHON})` : ''}` +
    `${jax ? `, jax-js ${jax.gflops.toFixed(1)} GFLOP/s, ${jax.cpuGflops.toFixed(1)} per CPU-second (${jax.shape.join('x')}, wasm, 1 thread)` : ''}; load average ${load.map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs\n` +
    Object.values(WORKLOADS)
      .filter((w) => MODELS.includes(w.name))
      .map(
        (w) =>
          `  ${w.name}: Qwen3 d=${w.config.dModel}, ${w.config.nLayers} layers, ${w.config.nHeads} heads, ff ${w.config.dFF}, vocab ${w.config.vocabSize}; ${w.rows} x (${w.prompt} + ${w.response}) tokens, updates in micro-batches of ${w.microRows} rows\n`,
      )
      .join('') +
    "  % of peak: against the same runtime's matmul peak, by wall time and by CPU time (this process and the engine child; steadier on a loaded machine); boundary: share of the torch pass outside the child while a request is out (frames, pipe); loss here: between requests (lossOnLeaves)\n" +
    `${pad(HEADER)}\n${widths.map((n) => '-'.repeat(n)).join('-|-')}\n${table.map(pad).join('\n')}\n${failures.map((f) => `failed: ${f}\n`).join('')}`,
);
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify({ load, peaks: { torch, jax }, workloads: MODELS, rows, failures }, null, 2)}\n`);
process.stdout.write(`written ${OUT}\n`);
