// Achieved FLOP/s of the embedded policy as a share of this machine's fp32
// matmul peak in the same runtime (jax-js wasm, same thread configuration).
//   node test/bench/flops-bench.ts
// Shape and sizes come from env vars (defaults near the training demo):
// BENCH_ARCH=Qwen3ForCausalLM (or LlamaForCausalLM, Qwen2ForCausalLM) BENCH_LAYERS=4
// BENCH_D_MODEL=128 BENCH_HEADS=4 BENCH_KV_HEADS=BENCH_HEADS BENCH_HEAD_DIM=d/heads BENCH_D_FF=512 BENCH_VOCAB=600
// BENCH_PROMPT=40 BENCH_RESPONSE=24 BENCH_BATCHES=1,64,256 BENCH_MAX_BATCH=64
// BENCH_SECONDS=2 BENCH_THREADS=0 (0: jax-js's single-thread path; n: its worker
// pool of n, the calling thread included, see web-worker-shim.ts) BENCH_MIN_THREAD_ELEMENTS
// BENCH_WORKLOADS=generate,score,update.
// FLOPs are counted analytically (shared/policy/src/model/flops.ts: matmuls only, at
// the padded shapes the kernels actually run; training = forward + 2x backward).
// The first call of each workload (jit compilation) is reported apart and
// excluded from the timings. Rows report the fastest call of at least 3 over
// BENCH_SECONDS (the least disturbed by other processes on this shared 2-core
// machine; the peak is a best-of too) and the median beside it.
import { createRng } from '@rl/service-kit';
import { PolicyTrainer, createRandomPolicy, ensureTensorBackend, np, parseModelConfig, type EmbeddedPolicy, type PolicyLoss } from '@rl/policy';
import { batchBucket, generateFlops, scoreFlops, trainFlops, widthBucket, type FlopShape } from '@rl/policy/internal';
import { jaxMatmul, type MatmulShape, measure } from './measure.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('BENCH_SECONDS', 2);
const THREADS = env('BENCH_THREADS', 0);
const PROMPT = env('BENCH_PROMPT', 40);
const RESPONSE = env('BENCH_RESPONSE', 24);
const MAX_BATCH = env('BENCH_MAX_BATCH', 64);
const BATCHES = (process.env.BENCH_BATCHES ?? '1,64,256').split(',').map(Number);
const WORKLOADS = new Set((process.env.BENCH_WORKLOADS ?? 'generate,score,update').split(','));
const CONFIG = parseModelConfig({
  architecture: process.env.BENCH_ARCH ?? 'Qwen3ForCausalLM',
  vocabSize: env('BENCH_VOCAB', 600),
  dModel: env('BENCH_D_MODEL', 128),
  nLayers: env('BENCH_LAYERS', 4),
  nHeads: env('BENCH_HEADS', 4),
  ...(process.env.BENCH_KV_HEADS !== undefined && { nKvHeads: env('BENCH_KV_HEADS', 0) }),
  ...(process.env.BENCH_HEAD_DIM !== undefined && { headDim: env('BENCH_HEAD_DIM', 0) }),
  dFF: env('BENCH_D_FF', 512),
  maxSeqLen: PROMPT + RESPONSE,
});

const MIN_THREAD_ELEMENTS = process.env.BENCH_MIN_THREAD_ELEMENTS === undefined ? undefined : Number(process.env.BENCH_MIN_THREAD_ELEMENTS);
await ensureTensorBackend({ threads: THREADS, ...(MIN_THREAD_ELEMENTS !== undefined && { minThreadElements: MIN_THREAD_ELEMENTS }) });

/** Best GFLOP/s over a square and the model's matmul shapes, compiled as the policy's kernels are. */
async function matmulPeak(): Promise<{ gflops: number; shape: MatmulShape; rows: string[] }> {
  const d = CONFIG.dModel;
  const tokens = Math.min(MAX_BATCH, 64) * 64;
  const shapes: MatmulShape[] = [
    [1024, 1024, 1024],
    [tokens, d, CONFIG.dFF],
    [tokens, CONFIG.dFF, d],
    [tokens, d, CONFIG.nHeads * CONFIG.headDim],
    [tokens, d, CONFIG.nKvHeads * CONFIG.headDim],
    [tokens, d, CONFIG.vocabSize],
  ];
  let best: { gflops: number; shape: MatmulShape } = { gflops: 0, shape: shapes[0]! };
  const rows: string[] = [];
  for (const shape of shapes) {
    const { gflops } = await jaxMatmul(shape, SECONDS);
    rows.push(`${shape.join('x')}: ${gflops.toFixed(1)} GFLOP/s`);
    if (gflops > best.gflops) best = { gflops, shape };
  }
  return { ...best, rows };
}

/** Synthetic char vocabulary of CONFIG.vocabSize ids (4 specials + characters from U+0100). */
const tokenizer = { kind: 'char' as const, characters: Array.from({ length: CONFIG.vocabSize - 4 }, (_, i) => String.fromCodePoint(0x100 + i)) };
const rng = createRng(7);
const randomIds = (n: number) => Array.from({ length: n }, () => rng.int(4, CONFIG.vocabSize - 1));
// Prompts of PROMPT - 7 .. PROMPT tokens (left padding is exercised), responses of exactly RESPONSE.
const maxRows = Math.max(...BATCHES);
const prompts = Array.from({ length: maxRows }, () => randomIds(PROMPT - rng.int(0, Math.min(7, PROMPT - 1))));
const pairs = prompts.map((prompt) => ({ prompt, response: randomIds(RESPONSE) }));
const advantages = pairs.map((p) => Float32Array.from(p.response, () => rng.next() * 2 - 1));

const ppo: PolicyLoss = (t) => {
  const ratio = np.exp(t.logprobs.sub(t.input('old_logprobs')));
  const adv = t.input('advantages');
  const pg = np.maximum(ratio.ref.mul(adv.ref).mul(-1), np.clip(ratio, 0.8, 1.28).mul(adv).mul(-1));
  const mask = t.mask;
  return { loss: np.sum(pg.mul(mask.ref)).div(np.sum(mask)) };
};

/** FLOPs of `rows` rows run in chunks of MAX_BATCH, each padded to its bucket; `perChunk` counts one padded chunk. */
function chunked(rows: number, perChunk: (paddedRows: number) => number): number {
  let total = 0;
  for (let start = 0; start < rows; start += MAX_BATCH) total += perChunk(batchBucket(Math.min(MAX_BATCH, rows - start)));
  return total;
}

const shape: FlopShape = CONFIG;
const promptWidth = widthBucket(PROMPT);
const responseWidth = widthBucket(RESPONSE);
const capacity = widthBucket(promptWidth + RESPONSE, 16);

const peak = await matmulPeak();
const policy: EmbeddedPolicy = await createRandomPolicy({ config: CONFIG, tokenizer, seed: 1 }, { maxBatchSize: MAX_BATCH });
const trainer = await PolicyTrainer.create(await policy.exportWeights(), { lr: 1e-4 });
const table: string[][] = [];
const failures: string[] = [];
/** Measures one workload and adds its row; a failure (e.g. past jax-js's 4 GiB memory) becomes a row saying so. */
async function row(workload: string, batch: number, tokens: number, flops: number, run: () => Promise<unknown>): Promise<void> {
  try {
    const r = await measure(run, SECONDS);
    const gflops = flops / r.ms / 1e6;
    table.push([
      workload,
      String(batch),
      String(tokens),
      r.ms.toFixed(1),
      r.medianMs.toFixed(1),
      gflops.toFixed(2),
      `${((100 * gflops) / peak.gflops).toFixed(1)}%`,
      r.firstMs.toFixed(0),
    ]);
  } catch (err) {
    table.push([workload, String(batch), String(tokens), 'failed', '', '', '', '']);
    failures.push(`${workload}, batch ${batch}: ${err instanceof Error ? err.message : String(err)}`);
  }
  process.stderr.write(`${table.at(-1)!.join(' | ')}\n`);
}

for (const batch of WORKLOADS.has('generate') ? BATCHES : []) {
  const ps = prompts.slice(0, batch);
  const flops = chunked(batch, (r) => generateFlops(shape, r, promptWidth, capacity, RESPONSE));
  await row('generate (KV cache)', batch, batch * RESPONSE, flops, () =>
    policy.generate(ps, { temperature: 1, maxTokens: RESPONSE, stopTokenIds: [], seed: 1 }),
  );
}
for (const batch of WORKLOADS.has('score') ? BATCHES : []) {
  const flops = chunked(batch, (r) => scoreFlops(shape, r, promptWidth, responseWidth));
  await row('log-probs + entropy', batch, batch * (promptWidth + responseWidth), flops, () => policy.score(pairs.slice(0, batch)));
}
// After the log-prob rows, so that their first calls include compilation.
const oldLogprobs = WORKLOADS.has('update') ? await policy.logprobs(pairs) : [];
for (const batch of WORKLOADS.has('update') ? BATCHES : []) {
  const micro = { pairs: pairs.slice(0, batch), inputs: { advantages: advantages.slice(0, batch), old_logprobs: oldLogprobs.slice(0, batch) } };
  await row(
    'update (accumulate + AdamW)',
    batch,
    batch * (promptWidth + responseWidth),
    trainFlops(shape, batchBucket(batch), promptWidth, responseWidth),
    async () => {
      await trainer.accumulate(micro, ppo);
      await trainer.applyGradients();
    },
  );
}

const header = ['workload', 'batch', 'tokens', 'ms (best)', 'ms (median)', 'GFLOP/s', '% of peak', 'first call ms'];
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
const threads =
  THREADS > 0 ? `worker pool of ${THREADS} threads (main + ${THREADS - 1}), chunks >= ${MIN_THREAD_ELEMENTS ?? 32768} outputs on threads` : '1 thread';
process.stdout.write(
  `model: ${CONFIG.architecture}, ${CONFIG.nLayers} layers, d=${CONFIG.dModel}, ${CONFIG.nHeads} heads (${CONFIG.nKvHeads} kv) of ${CONFIG.headDim}, dFF=${CONFIG.dFF}, vocab ${CONFIG.vocabSize}; prompts ${PROMPT - 7}-${PROMPT} tokens (padded ${promptWidth}), responses ${RESPONSE} (padded ${responseWidth}), cache ${capacity}; chunks of ${MAX_BATCH} rows for generate/score\n` +
    `peak: ${peak.gflops.toFixed(1)} GFLOP/s fp32 (${peak.shape.join('x')} matmul, jax-js wasm jit, ${threads}); ${peak.rows.join(', ')}\n` +
    `FLOPs: matmuls only (projections, QK^T and AV over padded lengths, output head); update = forward + 2x backward\n`,
);
process.stdout.write(
  `${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${table.map(line).join('\n')}\n${failures.map((f) => `failed: ${f}\n`).join('')}`,
);
trainer.dispose();
policy.dispose();
