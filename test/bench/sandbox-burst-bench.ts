// `make bench` (sandbox slots): a burst of programs that mostly wait, and
// CPU-bound saturation, against one sandbox service with its default slots.
// The burst is 512 in-flight `time.sleep(0.2)` python programs sent at once
// (total wall time); saturation is 16 clients in a loop over a program that
// burns 50 ms of CPU (runs/s and CPU ms per run), so the adaptive slot count
// must not slow CPU-bound work while it lets waiting programs in.
// BENCH_SANDBOX_ENV=SANDBOX_CONCURRENCY=2 gives the fixed count of before
// (one slot per core); BENCH_BURSTS (2), BENCH_BURST (512), BENCH_SECONDS (6),
// BENCH_BUSY_MS (50: CPU ms of the CPU-bound program).
import { readFileSync } from 'node:fs';
import { startNatsServer, startService } from '../support/processes.ts';
import { joinCpuAccount } from './cpu-account.ts';
import { percentile, sandboxEnvOverrides } from './timing.ts';

const BURST = Number(process.env.BENCH_BURST ?? 512);
const SATURATE_SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 2);
const BUSY_MS = Number(process.env.BENCH_BUSY_MS ?? 50);
const ENV = sandboxEnvOverrides();

const sleeper = { language: 'python', code: 'import time\ntime.sleep(0.2)\nprint("ok")', run_timeout: 30 };
// Burns 50 ms of its own CPU time whatever the contention (process_time, not the wall clock).
const busy = { language: 'python', code: `import time\nwhile time.process_time() < ${BUSY_MS / 1000}:\n    pass\nprint("ok")`, run_timeout: 30 };

const cpuAccount = joinCpuAccount();

async function post(baseUrl: string, body: unknown): Promise<number> {
  for (;;) {
    const t = performance.now();
    const r = await fetch(`${baseUrl}/run_code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = (await r.json()) as { status?: string };
    if (r.status === 504) {
      await new Promise((res) => setTimeout(res, 1000));
      continue;
    }
    if (r.status !== 200 || j.status !== 'Success') throw new Error(`HTTP ${r.status}: ${JSON.stringify(j).slice(0, 500)}`);
    return performance.now() - t;
  }
}

/** Running programs (peak, mean) and the admission limit (mean), from /metrics every 50 ms until `stop()`. */
async function peak(baseUrl: string, stop: () => boolean): Promise<{ peak: number; mean: number; limit: number }> {
  const seen: number[] = [];
  const limits: number[] = [];
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  while (!stop()) {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    seen.push(gauge(text, 'sandbox_running'));
    limits.push(gauge(text, 'sandbox_admission_limit'));
    await new Promise((res) => setTimeout(res, 50));
  }
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / Math.max(1, xs.length);
  return { peak: Math.max(0, ...seen), mean: mean(seen), limit: mean(limits) };
}

/** CPU ms of the service's own process (not its children), from /proc/<pid>/stat. */
function serviceCpuMs(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, USER_HZ = 100
  } catch {
    return Number.NaN;
  }
}

/** Sends BURST sleeping programs at once; wall time, latencies, peak running and CPU per run. */
async function burst(baseUrl: string, pid: number | undefined) {
  let burstDone = false;
  const peakBurst = peak(baseUrl, () => burstDone);
  const cpu0 = cpuAccount?.usageNs() ?? 0;
  const client0 = process.cpuUsage();
  const svc0 = serviceCpuMs(pid);
  const t0 = performance.now();
  const lat = await Promise.all(Array.from({ length: BURST }, () => post(baseUrl, sleeper)));
  const wall = (performance.now() - t0) / 1000;
  burstDone = true;
  const client = process.cpuUsage(client0);
  const cpuMs = cpuAccount === null ? null : ((cpuAccount.usageNs() - cpu0) / 1e6 - (client.user + client.system) / 1e3) / BURST;
  return { wall, lat, peak: await peakBurst, cpuMs, serviceMs: (serviceCpuMs(pid) - svc0) / BURST };
}

const nats = await startNatsServer();
try {
  const svc = await startService('reward-sandbox', { NATS_URL: nats.url, LOG_LEVEL: 'info', ...ENV });
  try {
    for (let i = 0; i < 5; i++) await post(svc.baseUrl, { language: 'python', code: 'print(1)' });

    const bursts = [];
    for (let i = 0; i < BURSTS; i++) bursts.push(await burst(svc.baseUrl, svc.proc.pid));

    let done = 0;
    let satDone = false;
    const peakSat = peak(svc.baseUrl, () => satDone);
    const deadline = performance.now() + SATURATE_SECONDS * 1000;
    const treeBefore = cpuAccount?.usageNs() ?? 0;
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    const satLat: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < deadline) {
          satLat.push(await post(svc.baseUrl, busy));
          done += 1;
        }
      }),
    );
    const rate = done / ((performance.now() - started) / 1000);
    satDone = true;
    const satPeak = await peakSat;
    const client = process.cpuUsage(clientBefore);
    const cpuMs = cpuAccount === null ? null : ((cpuAccount.usageNs() - treeBefore) / 1e6 - (client.user + client.system) / 1e3) / done;

    console.log(`sandbox slots (${Object.keys(ENV).length > 0 ? JSON.stringify(ENV) : 'default config'})\n`);
    for (const [i, b] of bursts.entries()) {
      console.log(
        `burst${i === 0 ? ' (first: slots past the warm ones start their zygotes)' : ' (again, right after)'}: ${BURST} in-flight python time.sleep(0.2) programs: ${b.wall.toFixed(2)} s wall, latency p50 ${(percentile(b.lat, 50) / 1000).toFixed(2)} s / max ${(Math.max(...b.lat) / 1000).toFixed(2)} s, running peak ${b.peak.peak} / mean ${b.peak.mean.toFixed(1)} (limit mean ${b.peak.limit.toFixed(1)}), ${b.cpuMs === null ? 'CPU per run n/a' : `${b.cpuMs.toFixed(1)} ms CPU per run (${b.serviceMs.toFixed(1)} of it in the service process)`} (target < 10 s)`,
      );
    }
    console.log(
      `CPU-bound saturation (${BUSY_MS} ms CPU busy loop, 16 in flight, ${SATURATE_SECONDS} s): ${rate.toFixed(1)} runs/s, ${cpuMs === null ? 'CPU per run n/a' : `${cpuMs.toFixed(1)} ms CPU per run`}, latency p50 ${percentile(satLat, 50).toFixed(0)} ms / p99 ${percentile(satLat, 99).toFixed(0)} ms, running peak ${satPeak.peak} / mean ${satPeak.mean.toFixed(1)} (limit mean ${satPeak.limit.toFixed(1)})`,
    );
  } finally {
    await svc.stop();
  }
} finally {
  await nats.stop();
  cpuAccount?.close();
}
