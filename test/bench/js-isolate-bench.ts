// Latency benchmark for the isolate fast path (not a test: timings are machine
// dependent). Run: node test/bench/js-isolate-bench.ts [gapMs]
// Prints p50/p90/p99 of `run()` for a hello world, sequential runs with an optional
// idle gap between them (0 = back to back).

import { IsolateRunner } from '../../services/reward-sandbox/src/adapters/js-isolate/index.ts';

const gapMs = Number(process.argv[2] ?? 0);
const runs = 200;
const warmup = 20;
// The first spare worker's start is not what this measures: wait for it.
const spareReady = Promise.withResolvers<void>();
const runner = new IsolateRunner({ warmMemoryMb: [256], onWorkerEvent: (e) => e.type === 'started' && spareReady.resolve() });
const spec = {
  language: 'nodejs',
  code: 'console.log("hello world")',
  stdin: null,
  compileTimeoutMs: 10_000,
  runTimeoutMs: 5_000,
  memoryLimitMb: 256,
  files: {},
  fetchFiles: [],
  maxOutputBytes: 1 << 20,
};

await spareReady.promise;
const times: number[] = [];
for (let i = 0; i < runs + warmup; i++) {
  const t = performance.now();
  const outcome = await runner.run(spec, new AbortController().signal);
  const elapsed = performance.now() - t;
  if (outcome.run_result?.stdout !== 'hello world\n') throw new Error(JSON.stringify(outcome));
  if (i >= warmup) times.push(elapsed);
  if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
}
await runner.close();
times.sort((a, b) => a - b);
const at = (q: number): string => (times[Math.floor(q * (times.length - 1))] as number).toFixed(3);
console.log(`hello world, ${runs} runs, gap ${gapMs} ms: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms`);
