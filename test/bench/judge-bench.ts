// LLM judge throughput against a provider's rate limit: one judge (the
// reward-model service's judge backend, real time, real HTTP) scores a batch
// against the fake judge server enforcing the same max_rpm over a sliding 60 s
// window with 429 + Retry-After. The run lasts past 60 s so the server's window
// fills: a judge that bursts gets 429s; one paced right gets none and runs at
// max_rpm. Reports items/min, its share of max_rpm, the 429s the server sent
// and the items that failed (a 429 retried to a score is not a failure).
//   node test/bench/judge-bench.ts
// BENCH_RPM=600 (max_rpm of the judge and of the server), BENCH_SECONDS=70 (items = rpm x seconds / 60),
// BENCH_CONCURRENT=8 (max_concurrent), BENCH_OUT=.run/bench/judge.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { ModelItem } from '../../services/reward-model/src/core/backend.ts';
import { createJudgeBackends } from '../../services/reward-model/src/judges/index.ts';
import { startFakeJudgeServer } from '../support/fake-judge-server.ts';

const ROOT = join(import.meta.dirname, '../..');
const RPM = Number(process.env.BENCH_RPM ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 70);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 8);
const OUT = process.env.BENCH_OUT ?? join(ROOT, '.run/bench/judge.json');
const ITEMS = Math.round((RPM * SECONDS) / 60);
if (!(RPM > 0 && ITEMS > 1 && CONCURRENT >= 1)) throw new Error('BENCH_RPM, BENCH_SECONDS and BENCH_CONCURRENT must be positive');

const server = await startFakeJudgeServer({ maxRpm: RPM, respond: () => ({ text: 'Fine. Score: 7' }) });
const yaml = `
judges:
  bench:
    base_url: ${server.baseUrl}
    model: judge-model
    prompt: "Q={{ question }} R={{ response }}"
    parser: {type: pattern, pattern: 'Score:\\s*(\\d+)'}
    score_range: [1, 10]
    limits: {max_concurrent: ${CONCURRENT}, max_rpm: ${RPM}}
    timeout_ms: ${Math.max(600_000, SECONDS * 2000)}
`;
// When each 429 came back, in seconds from the start: at a 60 s window's edge or not.
const limitedAt: number[] = [];
let t0 = performance.now();
const fetchSeen: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status === 429) limitedAt.push(Math.round((performance.now() - t0) / 100) / 10);
  return res;
};
const [judge] = createJudgeBackends(yaml, {}, { fetch: fetchSeen });
if (judge === undefined) throw new Error('no judge');
// Distinct responses: identical requests would be answered from the judge's cache.
const items: ModelItem[] = Array.from({ length: ITEMS }, (_, i) => ({
  dataSource: 'bench',
  messages: [{ role: 'user', content: 'What is 9+9?' }],
  response: `answer ${i}: 18`,
  extraInfo: {},
}));

try {
  t0 = performance.now();
  const outcomes = await judge.score(items, new AbortController().signal);
  const seconds = (performance.now() - t0) / 1000;
  const scored = outcomes.filter((o) => 'score' in o).length;
  const failures = outcomes.filter((o) => 'error' in o).map((o) => ('error' in o ? o.error.code : ''));
  const itemsPerMin = (scored / seconds) * 60;
  const row = {
    maxRpm: RPM,
    maxConcurrent: CONCURRENT,
    items: ITEMS,
    seconds: Math.round(seconds * 10) / 10,
    requests: server.requests.length,
    scored,
    failures: failures.length,
    failureCodes: [...new Set(failures)],
    rateLimited429: server.rateLimited,
    rateLimitedAtS: limitedAt,
    itemsPerMin: Math.round(itemsPerMin * 10) / 10,
    shareOfMaxRpm: Math.round((itemsPerMin / RPM) * 1000) / 1000,
    peakInFlight: server.peakInFlight,
  };
  console.log('max_rpm  items  seconds  items/min  share  429s  failures  peak in flight');
  console.log(
    `${String(RPM).padStart(7)}  ${String(ITEMS).padStart(5)}  ${String(row.seconds).padStart(7)}  ${String(row.itemsPerMin).padStart(9)}  ${`${(row.shareOfMaxRpm * 100).toFixed(1)}%`.padStart(5)}  ${String(row.rateLimited429).padStart(4)}  ${String(row.failures).padStart(8)}  ${String(row.peakInFlight).padStart(14)}`,
  );
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify({ cpus: cpus().length, loadavg: loadavg(), rows: [row] }, null, 2)}\n`);
  if (limitedAt.length > 0) console.log(`429s at ${limitedAt.join(', ')} s`);
  console.log(
    `wrote ${OUT} (load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} CPUs)`,
  );
  if (row.failures > 0) process.exitCode = 1;
} finally {
  await judge.close();
  await server.close();
}
