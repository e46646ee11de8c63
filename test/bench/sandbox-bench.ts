// `make bench` (sandbox part): latency and throughput of code execution, per
// isolation mode, next to the floor: spawning the same interpreter with no
// isolation at all, measured in the same run.
import { spawn } from 'node:child_process';
import { startNatsServer, startService } from '../support/processes.ts';

const HELLO_RUNS = Number(process.env.BENCH_HELLO_RUNS ?? 200);
const SATURATE_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}
const ms = (x: number) => `${x.toFixed(2)} ms`.padStart(10);

async function timeIt(n: number, f: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 5; i++) await f(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  return out;
}

function spawnOnce(cmd: string, args: string[]): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout.resume();
    p.stderr.resume();
    p.once('error', rej);
    p.once('exit', () => res());
  });
}

/** Runs the zygote probe inside bubblewrap as the sandbox uid; returns its [p50, p99] per-run ms. */
function zygoteProbe(): Promise<[number, number]> {
  const probe = new URL('./zygote_probe.py', import.meta.url).pathname;
  const bw = ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--clearenv', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--ro-bind', probe, '/z.py', '/usr/bin/python3', '/z.py'];
  return new Promise((res, rej) => {
    const p = spawn('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '/usr/bin/bwrap', ...bw], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.once('error', rej);
    p.once('exit', (code) => {
      const [a, b] = out.trim().split(' ').map(Number);
      if (code !== 0 || a === undefined || b === undefined) rej(new Error(`zygote probe failed (${code}): ${out}`));
      else res([a, b]);
    });
  });
}

const nats = await startNatsServer();
const svc = await startService('reward-sandbox', { NATS_URL: nats.url, LOG_LEVEL: 'info' });
const post = async (path: string, body: unknown) => {
  const r = await fetch(`${svc.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const j = (await r.json()) as { status?: string; results?: Array<{ score?: number }> };
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(j)}`);
  return j;
};
const hello = { language: 'python', code: 'print("hello")' };
const apps = {
  data_source: 'apps',
  solution_str: '```python\nimport sys\nn = int(sys.stdin.readline())\nprint(sum(range(n + 1)))\n```',
  ground_truth: { inputs: Array.from({ length: 10 }, (_, i) => `${i * 7}\n`), outputs: Array.from({ length: 10 }, (_, i) => `${((i * 7) * (i * 7 + 1)) / 2}\n`) },
};

try {
  const floor = await timeIt(HELLO_RUNS, () => spawnOnce('/usr/bin/python3', ['-I', '-S', '-c', 'print("hello")']));
  // The sandbox runs python with its site-packages (numpy etc. must import), so this is the like-for-like floor.
  const floorSite = await timeIt(HELLO_RUNS, () => spawnOnce('/usr/bin/python3', ['-c', 'print("hello")']));
  const floorNode = await timeIt(Math.min(HELLO_RUNS, 100), () => spawnOnce(process.execPath, ['-e', 'console.log("hello")']));
  const py = await timeIt(HELLO_RUNS, () => post('/run_code', hello));
  const js = await timeIt(HELLO_RUNS, () => post('/run_code', { language: 'nodejs', code: 'console.log("hello")' }));
  const jsNative = await timeIt(Math.min(HELLO_RUNS, 50), () => post('/run_code', { language: 'nodejs', code: 'require("child_process"); console.log("hello")' }));
  const app = await timeIt(50, async () => {
    const r = await post('/v1/score', { items: [apps] });
    if (r.results?.[0]?.score !== 1) throw new Error(`APPS problem not solved: ${JSON.stringify(r)}`);
  });

  let done = 0;
  const deadline = performance.now() + SATURATE_SECONDS * 1000;
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

  console.log(`code execution latency (HTTP /run_code end to end, sequential, ${HELLO_RUNS} runs)\n`);
  console.log(`${'case'.padEnd(52)} ${'p50'.padStart(10)} ${'p99'.padStart(10)}`);
  const row = (name: string, xs: number[]) => console.log(`${name.padEnd(52)} ${ms(percentile(xs, 50))} ${ms(percentile(xs, 99))}`);
  row('floor: bare /usr/bin/python3 -I -S spawn, no isolation', floor);
  row('floor: bare /usr/bin/python3 spawn (site, as sandboxed)', floorSite);
  row('python hello, bubblewrap sandbox (via HTTP)', py);
  row('floor: bare node spawn, no isolation', floorNode);
  row('nodejs hello, isolated-vm fast path (via HTTP)', js);
  row('nodejs hello needing require(), bubblewrap + node', jsNative);
  row('10-case APPS problem, /v1/score (bubblewrap python)', app);
  const [zygoteP50, zygoteP99] = await zygoteProbe();
  console.log(`${'probe: zygote fork into fresh namespaces (not served)'.padEnd(52)} ${ms(zygoteP50)} ${ms(zygoteP99)}`);
  console.log(`\npython hello at saturation (16 in flight): ${Math.round(rate)} runs/s`);
  console.log(`sandboxed python p50 / bare -I -S spawn p50 = ${(percentile(py, 50) / percentile(floor, 50)).toFixed(2)}x, / bare spawn with site = ${(percentile(py, 50) / percentile(floorSite, 50)).toFixed(2)}x (target <= 1.3x)`);
} finally {
  await svc.stop();
  await nats.stop();
}
