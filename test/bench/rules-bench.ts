// `make bench`: rule-reward throughput in-process (our scorer, one thread),
// over HTTP and over NATS (real nats-server, real service process, batches of
// 512, several requests in flight), next to verl's in-process Python figures.
// The load generator shares this machine's cores with the service and the NATS
// server, so it stays light: batches are encoded once up front (as a trainer
// serialises each batch once) and replies are decoded and counted.
import type { NatsConnection } from '@nats-io/transport-node';
import type { ScoreItem } from '@rl/service-kit';
import { scoreItem } from '../../services/reward-rules/src/core/score-item.ts';
import { connectTestClient } from '../support/nats-client.ts';
import { startNatsServer, startService } from '../support/processes.ts';
import { workloads } from './workloads.ts';

const BATCH = 512;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ITEMS = 4096;

function inProcess(items: ScoreItem[]): number {
  const tasks = items.map((i) => ({ ...i, extra_info: undefined, params: i.params ?? {} }));
  for (const t of tasks.slice(0, 500)) scoreItem(t); // warm-up
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    for (const t of tasks) scoreItem(t);
    n += tasks.length;
  }
  return n / ((performance.now() - started) / 1000);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const countResults = (bytes: Uint8Array) => (JSON.parse(decoder.decode(bytes)) as { results: unknown[] }).results.length;

async function saturate(send: (batch: Uint8Array) => Promise<number>, items: ScoreItem[]): Promise<number> {
  const batches: Uint8Array[] = [];
  for (let i = 0; i < items.length; i += BATCH) batches.push(encoder.encode(JSON.stringify({ items: items.slice(i, i + BATCH) })));
  for (const b of batches.slice(0, 4)) await send(b); // warm-up: JIT, worker threads, connections
  let done = 0;
  let k = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < deadline) {
        // Await first: `done += await x` would read `done` before the await and lose updates.
        const scored = await send(batches[k++ % batches.length]!);
        done += scored;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

const fmt = (x: number) => `${Math.round(x).toLocaleString('en-US')}/s`.padStart(12);

const nats = await startNatsServer();
const svc = await startService('reward-rules', { NATS_URL: nats.url, LOG_LEVEL: 'info' });
const nc: NatsConnection = await connectTestClient(nats.url);
try {
  console.log(`rule-reward throughput, batches of ${BATCH}, ${IN_FLIGHT} requests in flight, ${SECONDS}s per cell, ${ITEMS} distinct items\n`);
  console.log(
    `${'workload'.padEnd(20)} ${'verl (py, 1 core)'.padStart(18)} ${'ours in-process'.padStart(16)} ${'HTTP'.padStart(12)} ${'NATS'.padStart(12)} ${'NATS / verl'.padStart(12)}`,
  );
  for (const w of workloads(ITEMS)) {
    const local = inProcess(w.items);
    const http = await saturate(async (body) => {
      const res = await fetch(`${svc.baseUrl}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      return countResults(new Uint8Array(await res.arrayBuffer()));
    }, w.items);
    const bus = await saturate(async (body) => countResults((await nc.request('reward.rules.score', body, { timeout: 30_000 })).data), w.items);
    console.log(
      `${w.name.padEnd(20)} ${fmt(w.verlItemsPerSec).padStart(18)} ${fmt(local).padStart(16)} ${fmt(http)} ${fmt(bus)} ${`${(bus / w.verlItemsPerSec).toFixed(2)}x`.padStart(12)}`,
    );
  }
  console.log('\nTarget (issue #2): NATS at batch 512 >= 2x verl in-process. "ours in-process" is one thread; the service uses SCORE_WORKERS threads.');
} finally {
  await nc.close();
  await svc.stop();
  await nats.stop();
}
