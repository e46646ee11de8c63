// `make bench` (memory part): each service's resident memory idle and under a
// sustained, representative load, against real service processes started as
// `make up` starts them. Resident = VmRSS of the service process (its worker
// threads are in-process) plus every process it owns (its descendants, e.g.
// sandboxes), read from /proc. Under load the peak, the mean of the last
// quarter and the value at the end are reported, with the requests' throughput.
// Summed VmRSS counts pages shared between processes (the node or python binary,
// libraries) once per process; the end figure's PSS divides them among the
// processes instead, which is what a tree of many sandboxes really adds.
//
//   BENCH_LOAD_SECONDS   load per service (default 20; 600 for the 10-minute figure)
//   BENCH_SERVICES       comma-separated subset (default: all)
//   BENCH_SAMPLE_MS      sampling period (default 1000)
//   BENCH_VERBOSE=1      print every sample to stderr
import { readdirSync, readFileSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectTestClient } from '../support/nats-client.ts';
import { REPLIES, storyItem } from '../../services/reward-story/src/core/testing/story-fixture.ts';
import { ROOT, startNatsServer, startService, type ServiceProcess } from '../support/processes.ts';
import { workloads } from './workloads.ts';

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 1000);
const SELECTED = (process.env.BENCH_SERVICES ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

/** Resident memory of a process tree, in bytes (VmRSS summed; RssAnon/RssFile split). */
export interface TreeRss {
  rss: number;
  anon: number;
  file: number;
  /** Proportional set size (shared pages divided among the processes mapping them), when readable. */
  pss: number;
  processes: number;
}

function statusKb(pid: number): Map<string, number> | undefined {
  try {
    const out = new Map<string, number>();
    for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
      const m = /^(\w+):\s+(\d+) kB/.exec(line);
      if (m) out.set(m[1]!, Number(m[2]));
    }
    return out;
  } catch {
    return undefined; // exited meanwhile
  }
}

function pssKb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // exited meanwhile
  }
  return out;
}

/** RSS of `pid` and all its descendants. */
export function treeRss(pid: number): TreeRss {
  const total: TreeRss = { rss: 0, anon: 0, file: 0, pss: 0, processes: 0 };
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop()!;
    const s = statusKb(p);
    if (s === undefined) continue;
    total.rss += (s.get('VmRSS') ?? 0) * 1024;
    total.anon += (s.get('RssAnon') ?? 0) * 1024;
    total.file += ((s.get('RssFile') ?? 0) + (s.get('RssShmem') ?? 0)) * 1024;
    total.pss += pssKb(p) * 1024;
    total.processes += 1;
    todo.push(...children(p));
  }
  return total;
}

/** A service's representative load: sends requests until `until`, returns units done and their name. */
interface Load {
  unit: string;
  run(until: number): Promise<number>;
}

interface Case {
  service: string;
  env?: NodeJS.ProcessEnv;
  /** Undefined: idle only. */
  load?: (svc: ServiceProcess, nc: NatsConnection) => Promise<Load>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function postJson(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** `inFlight` loops each sending `once()` until the deadline. */
async function loops(inFlight: number, until: number, once: (k: number) => Promise<number>): Promise<number> {
  let done = 0;
  let k = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const n = await once(k++);
        done += n;
      }
    }),
  );
  return done;
}

const CASES: Case[] = [
  {
    // rules-bench's traffic: gsm8k, MATH and QA batches of 512 over NATS, 8 in flight.
    service: 'reward-rules',
    load: async (_svc, nc) => {
      const batches: Uint8Array[] = [];
      for (const w of workloads(4096))
        for (let i = 0; i < w.items.length; i += 512) batches.push(encoder.encode(JSON.stringify({ items: w.items.slice(i, i + 512) })));
      return {
        unit: 'items',
        run: (until) =>
          loops(8, until, async (k) => {
            const m = await nc.request('reward.rules.score', batches[k % batches.length]!, { timeout: 60_000 });
            return (JSON.parse(decoder.decode(m.data)) as { results: unknown[] }).results.length;
          }),
      };
    },
  },
  {
    // sandbox-bench's saturation: python hello world over /run_code, 16 in flight.
    service: 'reward-sandbox',
    load: async (svc) => ({
      unit: 'runs',
      run: (until) =>
        loops(16, until, async () => {
          await postJson(`${svc.baseUrl}/run_code`, { language: 'python', code: 'print("hello")' });
          return 1;
        }),
    }),
  },
  {
    // story-bench's request, 8 in flight, each reply distinct so the embedding cache does not answer.
    service: 'reward-story',
    load: async (svc) => ({
      unit: 'items',
      run: (until) =>
        loops(8, until, async (k) => {
          const items = Array.from({ length: 4 }, (_, j) => storyItem(`${REPLIES.good} (${k}.${j})`));
          return ((await postJson(`${svc.baseUrl}/v1/score`, { items })) as { results: unknown[] }).results.length;
        }),
    }),
  },
  {
    // Small rollouts with the embedded policy: 8 single-turn samples x 2, 16 new tokens, 2 in flight.
    service: 'generation',
    load: async (svc) => {
      const samples = Array.from({ length: 8 }, (_, i) => ({ prompt: [{ role: 'user', content: `What is ${i} + 3?` }] }));
      return {
        unit: 'rollouts',
        run: (until) =>
          loops(2, until, async (k) => {
            const body = { samples, n: 2, sampling: { seed: k, temperature: 1 }, limits: { max_response_tokens: 16 } };
            return ((await postJson(`${svc.baseUrl}/v1/rollouts`, body)) as { results: unknown[] }).results.length;
          }),
      };
    },
  },
  { service: 'trainer' },
];

const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`.padStart(8);

async function measure(c: Case, natsUrl: string, nc: NatsConnection): Promise<string> {
  const svc = await startService(c.service, { NATS_URL: natsUrl, LOG_LEVEL: 'info', TRAINER_BASE_DIR: ROOT, ...c.env });
  const pid = svc.proc.pid!;
  try {
    await new Promise((r) => setTimeout(r, 2000)); // settle after start-up
    const idle = treeRss(pid);
    if (c.load === undefined)
      return `${c.service.padEnd(16)} ${mb(idle.rss)} ${'-'.padStart(8)} ${'-'.padStart(8)} ${'-'.padStart(8)}  idle only (anon ${mb(idle.anon).trim()}, file ${mb(idle.file).trim()}, PSS ${mb(idle.pss).trim()}, ${idle.processes} proc)`;
    const load = await c.load(svc, nc);
    await load.run(performance.now() + 1000); // warm-up
    const samples: TreeRss[] = [];
    const timer = setInterval(() => {
      const s = treeRss(pid);
      samples.push(s);
      if (process.env.BENCH_VERBOSE)
        console.error(`${c.service} t=${samples.length} rss=${mb(s.rss)} anon=${mb(s.anon)} file=${mb(s.file)} procs=${s.processes}`);
    }, SAMPLE_MS);
    const started = performance.now();
    const done = await load.run(started + LOAD_SECONDS * 1000);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    samples.push(treeRss(pid));
    const peak = Math.max(...samples.map((s) => s.rss));
    const tail = samples.slice(Math.floor(samples.length * 0.75));
    const tailMean = tail.reduce((a, s) => a + s.rss, 0) / tail.length;
    const end = samples.at(-1)!;
    const rate = `${Math.round(done / seconds).toLocaleString('en-US')} ${load.unit}/s`;
    return `${c.service.padEnd(16)} ${mb(idle.rss)} ${mb(peak)} ${mb(tailMean)} ${mb(end.rss)}  ${rate} (end: anon ${mb(end.anon).trim()}, file ${mb(end.file).trim()}, PSS ${mb(end.pss).trim()}, ${end.processes} proc)`;
  } finally {
    await svc.stop();
  }
}

const nats = await startNatsServer();
const nc = await connectTestClient(nats.url);
try {
  console.log(`resident memory (VmRSS of the service process and its descendants), idle and under ${LOAD_SECONDS} s of load\n`);
  console.log(`${'service'.padEnd(16)} ${'idle'.padStart(8)} ${'peak'.padStart(8)} ${'last 1/4'.padStart(8)} ${'end'.padStart(8)}  throughput under load`);
  for (const c of CASES) {
    if (SELECTED.length > 0 && !SELECTED.includes(c.service)) continue;
    console.log(await measure(c, nats.url, nc));
  }
} finally {
  await nc.close();
  await nats.stop();
}
