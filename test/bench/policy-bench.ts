// Embedded policy speed on verl's e2e model size (4 layers, 128 wide, Llama-like,
// char tokenizer of the arithmetic task): generated tokens per second at batch
// 1 and 64 with and without the KV cache, teacher-forced scoring, and one
// training step at batch 64.
//   node test/bench/policy-bench.ts
// Every row generates exactly MAX_TOKENS tokens (stop ids off) so rows are
// comparable; first calls (jit compilation) are excluded and reported apart.
import { join } from 'node:path';
import { readParquetRows } from '@rl/datasets';
import { PolicyTrainer, arithmeticTokenizer, createRandomPolicy, np, type EmbeddedPolicy, type PolicyLoss } from '@rl/policy';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const MAX_TOKENS = Number(process.env.BENCH_MAX_TOKENS ?? 24);
const CONFIG = { dModel: 128, nLayers: 4, nHeads: 4, dFF: 344, maxSeqLen: 64 };
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'verl', 'verl_arithmetic_sequence_train.parquet');

const tok = arithmeticTokenizer();
const prompts = (await readParquetRows(FIXTURE, { rowEnd: 64 })).rows.map((r) => tok.encode(String(r.prompt)));

async function timed(run: () => Promise<number>): Promise<{ firstMs: number; perSecond: number; msPerCall: number }> {
  const t0 = performance.now();
  await run();
  const firstMs = performance.now() - t0;
  let units = 0;
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000 || calls < 2) {
    units += await run();
    calls++;
  }
  const elapsed = (performance.now() - started) / 1000;
  return { firstMs, perSecond: units / elapsed, msPerCall: (elapsed * 1000) / calls };
}

function generation(policy: EmbeddedPolicy, batch: number, kvCache: boolean) {
  return timed(async () => {
    const gens = await policy.generateWith(prompts.slice(0, batch), { temperature: 1, maxTokens: MAX_TOKENS, stopTokenIds: [], seed: 1 }, { kvCache });
    return gens.reduce((n, g) => n + g.tokenIds.length, 0);
  });
}

const nll: PolicyLoss = (t) => {
  const mask = t.mask;
  return { loss: np.sum(t.logprobs.mul(mask.ref)).mul(-1).div(np.sum(mask)) };
};

const rows: string[][] = [];
const policy = await createRandomPolicy({ config: CONFIG, tokenizer: tok.config, seed: 1 });
for (const kvCache of [true, false]) {
  for (const batch of [1, 64]) {
    const r = await generation(policy, batch, kvCache);
    rows.push([
      `generate, batch ${batch}, ${kvCache ? 'KV cache' : 'no cache'}`,
      `${r.perSecond.toFixed(0)} tokens/s`,
      `${r.msPerCall.toFixed(1)} ms/call`,
      `${r.firstMs.toFixed(0)} ms`,
    ]);
  }
}
const pairs = prompts.map((prompt) => ({ prompt, response: tok.encode('1,2,3,4,5,6,7,8,9,0,1') }));
const scoring = await timed(async () => (await policy.score(pairs)).reduce((n, s) => n + s.logprobs.length, 0));
rows.push([
  'log-probs + entropy, batch 64 (teacher forcing)',
  `${scoring.perSecond.toFixed(0)} tokens/s`,
  `${scoring.msPerCall.toFixed(1)} ms/call`,
  `${scoring.firstMs.toFixed(0)} ms`,
]);
const trainer = await PolicyTrainer.create(await policy.exportWeights(), { lr: 1e-3 });
const training = await timed(async () => {
  await trainer.step({ pairs }, nll);
  return 1;
});
rows.push([
  'train step (fwd + bwd + AdamW), batch 64',
  `${training.perSecond.toFixed(2)} steps/s`,
  `${training.msPerCall.toFixed(1)} ms/step`,
  `${training.firstMs.toFixed(0)} ms`,
]);

const header = ['workload', 'throughput', 'time', 'first call (compile)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
process.stdout.write(
  `model: ${CONFIG.nLayers} layers, d=${CONFIG.dModel}, ${CONFIG.nHeads} heads, dFF=${CONFIG.dFF}, vocab ${tok.vocabSize}; prompts ${Math.min(...prompts.map((p) => p.length))}-${Math.max(...prompts.map((p) => p.length))} tokens, ${MAX_TOKENS} new tokens per row; jax-js wasm, 1 thread\n`,
);
process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${rows.map(line).join('\n')}\n`);
trainer.dispose();
policy.dispose();
