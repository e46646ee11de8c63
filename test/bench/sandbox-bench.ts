// `make bench` (sandbox part): latency and throughput of code execution, per
// isolation mode, next to the floor: spawning the same interpreter with no
// isolation at all, measured in the same run.
import { spawn } from 'node:child_process';
import { startNatsServer, startService } from '../support/processes.ts';
import { joinCpuAccount } from './cpu-account.ts';
import { percentile, sandboxEnvOverrides, timeIt } from './timing.ts';

const HELLO_RUNS = Number(process.env.BENCH_HELLO_RUNS ?? 200);
const SATURATE_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** Extra service settings, `K=V,K=V` (e.g. SANDBOX_CONCURRENCY=2 for the fixed slot count of before). */
const EXTRA_ENV = sandboxEnvOverrides();

const ms = (x: number) => `${x.toFixed(2)} ms`.padStart(10);

function spawnOnce(cmd: string, args: string[]): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout.resume();
    p.stderr.resume();
    p.once('error', rej);
    p.once('exit', () => res());
  });
}

const hello = { language: 'python', code: 'print("hello")' };
const apps = {
  data_source: 'apps',
  solution_str: '```python\nimport sys\nn = int(sys.stdin.readline())\nprint(sum(range(n + 1)))\n```',
  ground_truth: { inputs: Array.from({ length: 10 }, (_, i) => `${i * 7}\n`), outputs: Array.from({ length: 10 }, (_, i) => `${(i * 7 * (i * 7 + 1)) / 2}\n`) },
};

interface ModeResult {
  hello: number[];
  app: number[];
  rate: number;
  /** CPU ms per run at saturation (services and sandboxes; the bench's own client excluded), or null. */
  cpuMsPerRun: number | null;
}

/** Joined before anything starts, so every service and sandbox is counted. */
const cpuAccount = joinCpuAccount();

type Post = (path: string, body: unknown) => Promise<{ status?: string; results?: Array<{ score?: number }> }>;

function poster(baseUrl: string): Post {
  return async (path, body) => {
    const r = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = (await r.json()) as { status?: string; results?: Array<{ score?: number }> };
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(j)}`);
    return j;
  };
}

/** Python hello (sequential), a 10-case APPS problem, and hello at saturation, against one service instance. */
async function measurePython(post: Post): Promise<ModeResult> {
  const hello_ = await timeIt(HELLO_RUNS, () => post('/run_code', hello));
  const app = await timeIt(50, async () => {
    const r = await post('/v1/score', { items: [apps] });
    if (r.results?.[0]?.score !== 1) throw new Error(`APPS problem not solved: ${JSON.stringify(r)}`);
  });
  let done = 0;
  const deadline = performance.now() + SATURATE_SECONDS * 1000;
  const treeBefore = cpuAccount?.usageNs() ?? 0;
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < deadline) {
        await post('/run_code', hello);
        done += 1;
      }
    }),
  );
  const rate = done / ((performance.now() - started) / 1000);
  const client = process.cpuUsage(clientBefore);
  const cpuMsPerRun = cpuAccount === null ? null : ((cpuAccount.usageNs() - treeBefore) / 1e6 - (client.user + client.system) / 1e3) / done;
  return { hello: hello_, app, rate, cpuMsPerRun };
}

const nats = await startNatsServer();
try {
  const floor = await timeIt(HELLO_RUNS, () => spawnOnce('/usr/bin/python3', ['-I', '-S', '-c', 'print("hello")']));
  // The sandbox runs python with its site-packages (numpy etc. must import), so this is the like-for-like floor.
  const floorSite = await timeIt(HELLO_RUNS, () => spawnOnce('/usr/bin/python3', ['-c', 'print("hello")']));
  const floorNode = await timeIt(Math.min(HELLO_RUNS, 100), () => spawnOnce(process.execPath, ['-e', 'console.log("hello")']));

  const modes: Array<[string, ModeResult]> = [];
  let js: number[] = [];
  let jsNative: number[] = [];
  let http: number[] = [];
  for (const [mode, zygote] of [
    ['bubblewrap per run', 'false'],
    ['zygote (fork into fresh namespaces)', 'true'],
  ] as const) {
    const svc = await startService('reward-sandbox', { NATS_URL: nats.url, LOG_LEVEL: 'info', ...EXTRA_ENV, SANDBOX_PYTHON_ZYGOTE: zygote });
    try {
      const post = poster(svc.baseUrl);
      modes.push([mode, await measurePython(post)]);
      if (zygote === 'true') {
        // The HTTP round trip alone (the same client and server, no execution), to read the rows below against.
        http = await timeIt(HELLO_RUNS, async () => (await fetch(`${svc.baseUrl}/healthz`)).arrayBuffer());
        js = await timeIt(HELLO_RUNS, () => post('/run_code', { language: 'nodejs', code: 'console.log("hello")' }));
        jsNative = await timeIt(Math.min(HELLO_RUNS, 50), () =>
          post('/run_code', { language: 'nodejs', code: 'require("child_process"); console.log("hello")' }),
        );
      }
    } finally {
      await svc.stop();
    }
  }

  console.log(`code execution latency (HTTP /run_code end to end, sequential, ${HELLO_RUNS} runs)\n`);
  console.log(`${'case'.padEnd(58)} ${'p50'.padStart(10)} ${'p99'.padStart(10)}`);
  const row = (name: string, xs: number[]) => console.log(`${name.padEnd(58)} ${ms(percentile(xs, 50))} ${ms(percentile(xs, 99))}`);
  row('floor: bare /usr/bin/python3 -I -S spawn, no isolation', floor);
  row('floor: bare /usr/bin/python3 spawn (site, as sandboxed)', floorSite);
  for (const [mode, r] of modes) row(`python hello, ${mode}`, r.hello);
  for (const [mode, r] of modes) row(`10-case APPS problem (/v1/score), ${mode}`, r.app);
  row('floor: bare node spawn, no isolation', floorNode);
  row('HTTP round trip alone (GET /healthz)', http);
  row('nodejs hello, isolated-vm fast path', js);
  row('nodejs hello needing require(), bubblewrap + node', jsNative);
  console.log('');
  for (const [mode, r] of modes) {
    const p50 = percentile(r.hello, 50);
    const cpu = r.cpuMsPerRun === null ? 'CPU per run n/a (no cgroup-v1 cpuacct)' : `${r.cpuMsPerRun.toFixed(1)} ms CPU per run`;
    console.log(
      `${mode}: ${Math.round(r.rate)} python runs/s at saturation (16 in flight), ${cpu}; p50 = ${(p50 / percentile(floor, 50)).toFixed(2)}x bare -I -S spawn, ${(p50 / percentile(floorSite, 50)).toFixed(2)}x bare spawn with site (target <= 1.1x)`,
    );
  }
} finally {
  await nats.stop();
  cpuAccount?.close();
}
