// Story-reward embedder speed: embeddings per second at batch 1, 8 and 64 and
// the p50/p95 latency of a single embed() call, for the shipped default model
// (or any sentence-transformers ONNX export: BENCH_MODEL_DIR=/path).
//   node test/bench/embed-bench.ts
// The cache is off (every text is new) and texts are story-like, 20-60 words.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@rl/service-kit';
import { loadOnnxEmbedder, type OnnxEmbedder } from '../../services/reward-story/src/embed/onnx-embedder.ts';
import { percentile } from './timing.ts';

const MODEL_DIR = process.env.BENCH_MODEL_DIR ?? join(import.meta.dirname, '..', '..', 'services', 'reward-story', 'models', 'default');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const THREADS = Number(process.env.BENCH_THREADS ?? availableParallelism());
const SINGLE_CALLS = Number(process.env.BENCH_SINGLE_CALLS ?? 300);

const WORDS = `the a she he they it was had said and then but when her his their old young dark bright small
  knight dragon castle forest river storm night morning village sword king queen child mother letter secret
  door window road mountain ship sea wind fire light shadow voice heart dream ran walked whispered looked
  found lost waited opened carried fell smiled cried remembered quietly slowly suddenly again never always`
  .split(/\s+/)
  .filter(Boolean);

function makeTexts(n: number, seed: number): string[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: rng.int(20, 60) }, () => rng.pick(WORDS));
    return `${words.join(' ')} (${seed}-${i}).`; // the suffix keeps every text distinct
  });
}

async function throughput(embedder: OnnxEmbedder, batch: number): Promise<number> {
  let seed = batch * 1000;
  for (let i = 0; i < 3; i++) await embedder.embed(makeTexts(batch, seed++)); // warm-up
  const pool = Array.from({ length: 20 }, () => makeTexts(batch, seed++));
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    await embedder.embed(pool[done % pool.length]!.map((t) => `${t} ${done}`));
    done++;
  }
  return (done * batch) / ((performance.now() - started) / 1000);
}

async function singleLatencies(embedder: OnnxEmbedder): Promise<number[]> {
  const texts = makeTexts(SINGLE_CALLS + 20, 99);
  for (const t of texts.slice(0, 20)) await embedder.embed([t]); // warm-up
  const out: number[] = [];
  for (const t of texts.slice(20)) {
    const started = performance.now();
    await embedder.embed([t]);
    out.push(performance.now() - started);
  }
  return out;
}

async function main(): Promise<void> {
  const common = { modelDir: MODEL_DIR, intraOpThreads: THREADS, cacheEntries: 0, maxBatch: 64 };
  const embedder = await loadOnnxEmbedder({ ...common, batchWindowMs: 0 });
  process.stdout.write(
    `model ${embedder.modelId}: dim ${embedder.dim}, max ${embedder.maxSeqLength} tokens, ${THREADS} intra-op threads, ${availableParallelism()} cores\n`,
  );
  for (const batch of [1, 8, 64]) {
    process.stdout.write(`batch ${String(batch).padStart(2)}: ${(await throughput(embedder, batch)).toFixed(0).padStart(7)} embeddings/s\n`);
  }
  const zero = await singleLatencies(embedder);
  await embedder.close();

  // The service default waits 2 ms for company before a lone request runs.
  const windowed = await loadOnnxEmbedder({ ...common, batchWindowMs: 2 });
  const withWindow = await singleLatencies(windowed);
  await windowed.close();
  const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(2)} ms, p95 ${percentile(xs, 95).toFixed(2)} ms`;
  process.stdout.write(`single embed() call, window 0 ms: ${fmt(zero)}\n`);
  process.stdout.write(`single embed() call, window 2 ms: ${fmt(withWindow)}\n`);
}

await main();
