// `make bench`: reward-rules across a three-node NATS cluster on this machine.
// 1. Throughput (items/s) from a load generator on n0: one instance on n1,
//    then, in the same run, two instances (n1 and n2) in one queue group.
// 2. Failover: an instance alone on a node, the node SIGKILLed; the time from
//    the kill (the server's exit) to the first request answered, the load
//    generator (on a node that stays) re-sending as soon as a request fails.
// All processes share this machine's cores: two instances here compete for
// the same CPUs that two machines would not.
import type { NatsConnection } from '@nats-io/transport-node';
import { requestJson, ScoreResponse } from '@rl/service-kit';
import { connectTestClient } from '../support/nats-client.ts';
import { startNatsCluster } from '../support/nats-cluster.ts';
import { startService, type ServiceProcess } from '../support/processes.ts';
import { percentile } from './timing.ts';
import { workloads } from './workloads.ts';

const BATCH = 256;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const KILLS = Number(process.env.BENCH_KILLS ?? 5);
const SUBJECT = 'reward.rules.score';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Items/s with IN_FLIGHT requests of BATCH items kept in flight for SECONDS (after a short warm-up). */
async function itemsPerSecond(nc: NatsConnection, batches: Uint8Array[]): Promise<number> {
  const send = async (b: Uint8Array) =>
    (JSON.parse(decoder.decode((await nc.request(SUBJECT, b, { timeout: 30_000 })).data)) as { results: unknown[] }).results.length;
  for (const b of batches.slice(0, 8)) await send(b);
  let done = 0;
  let k = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < deadline) {
        const n = await send(batches[k++ % batches.length]!);
        done += n;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** Milliseconds from `since` until a one-item request on `nc` is answered, re-sending at once after each failure. */
async function firstAnswerMs(nc: NatsConnection, since: number): Promise<number> {
  const body = { items: [{ data_source: 'openai/gsm8k', solution_str: '#### 1', ground_truth: '1' }] };
  const deadline = since + 60_000;
  while (performance.now() < deadline) {
    try {
      await requestJson(nc, SUBJECT, body, { timeoutMs: 1_000, response: ScoreResponse });
      return performance.now() - since;
    } catch {
      // no_responders until the instance has subscribed again; timeout if the request went to the dead node.
    }
  }
  throw new Error('no answer within 60 s of the kill');
}

const cluster = await startNatsCluster();
const nc = await connectTestClient(cluster.nodes[0]!.url);
const instances: ServiceProcess[] = [];
const startRules = async (home: number) => {
  const s = await startService('reward-rules', { NATS_URL: cluster.urlFor(home), SCORE_WORKERS: '1' });
  instances.push(s);
  return s;
};
try {
  const w = workloads(4096).find((x) => x.name.startsWith('MATH'))!;
  const batches: Uint8Array[] = [];
  for (let i = 0; i < w.items.length; i += BATCH) batches.push(encoder.encode(JSON.stringify({ items: w.items.slice(i, i + BATCH) })));
  console.log(
    `reward-rules on a 3-node NATS cluster (loopback), ${w.name}, batches of ${BATCH}, ${IN_FLIGHT} in flight, ${SECONDS}s per cell, SCORE_WORKERS=1\n`,
  );
  const a = await startRules(1);
  const one = await itemsPerSecond(nc, batches);
  const b = await startRules(2);
  const two = await itemsPerSecond(nc, batches);
  console.log(`one instance (n1), load from n0:   ${Math.round(one).toLocaleString('en-US')} items/s`);
  console.log(`two instances (n1, n2), from n0:   ${Math.round(two).toLocaleString('en-US')} items/s (${(two / one).toFixed(2)}x)`);
  await Promise.all([a.stop(), b.stop()]);

  const times: number[] = [];
  for (let i = 0; i < KILLS; i++) {
    const home = 1 + (i % 2);
    const s = await startRules(home);
    await requestJson(
      nc,
      SUBJECT,
      { items: [{ data_source: 'openai/gsm8k', solution_str: '#### 1', ground_truth: '1' }] },
      { timeoutMs: 10_000, response: ScoreResponse },
    );
    const node = cluster.nodes[home]!;
    await node.kill();
    times.push(await firstAnswerMs(nc, performance.now()));
    await s.stop();
    await node.start();
  }
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(
    `\nnode SIGKILL -> first answered request (instance alone on the killed node, ${KILLS} kills): median ${ms(percentile(times, 50))}, max ${ms(Math.max(...times))} [${times.map((t) => t.toFixed(0)).join(', ')}]`,
  );
} finally {
  await nc.close();
  await Promise.all(instances.map((s) => s.stop()));
  await cluster.stop();
}
