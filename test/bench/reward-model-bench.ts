// Trained reward models on this machine: items/s of the reward-model backend
// (render with the model's chat template, token-count batches, one forward per
// batch, the head read per item) at 512-token inputs, on the embedded jax-js
// engine, on the PyTorch engine child and on onnxruntime-node (the same weights
// exported to model.onnx by the tests' export_onnx.py).
//   node test/bench/reward-model-bench.ts
// BENCH_SECONDS=2 (timed seconds per row, at least 3 calls after a first one timed apart),
// BENCH_MODELS=demo,d512, BENCH_ENGINES=jax,torch,onnx, BENCH_ITEMS=32 (items per call),
// BENCH_TORCH_THREADS=2 (the child's torch threads, and onnxruntime's intra-op threads),
// BENCH_OUT=.run/bench/reward-model.json.
// Models (Qwen3 ...ForTokenClassification, byte tokenizer, ChatML): `demo` is make run's
// size (d=128, 2 layers, 4 heads, ff 512); `d512` is 4 layers, d=512, 8 heads, ff 2048.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeTinyModelDir } from '@rl/policy/testing';
import type { ModelItem } from '../../services/reward-model/src/core/backend.ts';
import { loadRewardModel } from '../../services/reward-model/src/models/load-reward-model.ts';
import { exportOnnx } from '../../services/reward-model/src/models/testing/onnx-export.ts';
import { measure } from './measure.ts';

const ROOT = join(import.meta.dirname, '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const MODELS = (process.env.BENCH_MODELS ?? 'demo,d512').split(',');
const ENGINES = (process.env.BENCH_ENGINES ?? 'jax,torch,onnx').split(',') as Array<'jax' | 'torch' | 'onnx'>;
const ITEMS = Number(process.env.BENCH_ITEMS ?? 32);
const TOKENS = 512;
// One forward per call where memory allows: the budget fits every item (rows x (512 + the placeholder token)).
const BATCH_TOKENS = ITEMS * (TOKENS + 1);
const OUT = process.env.BENCH_OUT ?? join(ROOT, '.run/bench/reward-model.json');
process.env.OMP_NUM_THREADS = process.env.BENCH_TORCH_THREADS ?? '2';
const THREADS = Number(process.env.OMP_NUM_THREADS);

const SIZES: Record<string, { dModel: number; nLayers: number; nHeads: number; nKvHeads: number; dFF: number }> = {
  demo: { dModel: 128, nLayers: 2, nHeads: 4, nKvHeads: 4, dFF: 512 },
  d512: { dModel: 512, nLayers: 4, nHeads: 8, nKvHeads: 8, dFF: 2048 },
};

// "<|im_start|>user\n" + question + "<|im_end|>\n<|im_start|>assistant\n" + response + "<|im_end|>\n" in byte tokens.
const QUESTION = 'What is 9+9?';
const overhead = 1 + 4 + 1 + QUESTION.length + 1 + 1 + 1 + 9 + 1 + 1 + 1;
const items: ModelItem[] = Array.from({ length: ITEMS }, (_, i) => ({
  dataSource: 'bench',
  messages: [{ role: 'user', content: QUESTION }],
  response: `${i} `.padEnd(TOKENS - overhead, 'abcdefgh '),
  extraInfo: {},
}));

const tmp = mkdtempSync(join(tmpdir(), 'rl-rm-bench-'));
const rows: Array<Record<string, unknown>> = [];
try {
  for (const name of MODELS) {
    const size = SIZES[name];
    if (size === undefined) throw new Error(`BENCH_MODELS: unknown model ${name} (${Object.keys(SIZES).join(', ')})`);
    const dir = join(tmp, name);
    await writeTinyModelDir(dir, { valueHead: true, config: { ...size, maxSeqLen: 1024 } });
    if (ENGINES.includes('onnx')) exportOnnx(dir);
    for (const engine of ENGINES) {
      // jax-js's 4 GiB of wasm memory does not hold a d512 forward over 32 x 513 tokens: it runs 8 rows per forward.
      const budget = engine === 'jax' && name === 'd512' ? Math.min(BATCH_TOKENS, 8 * (TOKENS + 1)) : BATCH_TOKENS;
      const model = await loadRewardModel({ name, dir, engine }, { maxBatchTokens: budget, torchDevice: 'cpu', onnxThreads: THREADS });
      try {
        const signal = new AbortController().signal;
        const first = await model.score(items, signal);
        const tokens = first.map((o) => ('score' in o ? o.extra?.tokens : o.error.message));
        if (!tokens.every((t) => t === TOKENS)) throw new Error(`items are not ${TOKENS} tokens: ${JSON.stringify(tokens.slice(0, 3))}`);
        const m = await measure(() => model.score(items, signal), SECONDS);
        const row = {
          model: name,
          engine,
          threads: engine === 'jax' ? undefined : THREADS,
          items: ITEMS,
          tokens: TOKENS,
          batchTokens: budget,
          firstMs: Math.round(m.firstMs),
          itemsPerS: Math.round((ITEMS / m.ms) * 1000 * 10) / 10,
          medianItemsPerS: Math.round((ITEMS / m.medianMs) * 1000 * 10) / 10,
        };
        rows.push(row);
        console.log(
          `${name.padEnd(5)} ${engine.padEnd(5)} ${String(row.itemsPerS).padStart(8)} items/s (median ${row.medianItemsPerS}) at ${TOKENS} tokens, ${ITEMS} items per call in forwards of <= ${budget} tokens; first call ${row.firstMs} ms`,
        );
      } finally {
        await model.close();
      }
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify({ cpus: cpus().length, loadavg: loadavg(), rows }, null, 2)}\n`);
console.log(
  `wrote ${OUT} (load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs)`,
);
