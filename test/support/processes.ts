// Real processes for integration tests: a nats-server on a free port and
// service instances started exactly as `make up` starts them. Readiness is read
// from the processes' own log lines, never waited for with sleeps.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A child process that is killed (whole group) by `stop()`. */
export interface Running {
  readonly proc: ChildProcess;
  /** All output so far, for failure messages. */
  readonly output: string[];
  stop(): Promise<void>;
}

/** Spawns `cmd` in its own process group, collecting its output lines. */
export function launch(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Running {
  const proc = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  for (const stream of [proc.stdout, proc.stderr]) createInterface({ input: stream }).on('line', (l) => output.push(l));
  return {
    proc,
    output,
    stop: () =>
      new Promise<void>((res) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return res();
        proc.once('exit', () => res());
        try {
          process.kill(-(proc.pid ?? 0), 'SIGKILL');
        } catch {
          res();
        }
      }),
  };
}

/** Resolves with the first output line matching `re`, or rejects if the process exits or `timeoutMs` passes. */
export function waitForLine(r: Running, re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((res, rej) => {
    const seen = r.output.map((l) => l.match(re)).find((m) => m !== null);
    if (seen) return res(seen);
    const timer = setTimeout(() => done(new Error(`timed out waiting for ${re}:\n${r.output.join('\n')}`)), timeoutMs);
    const onLine = (l: string) => {
      const m = l.match(re);
      if (m) done(undefined, m);
    };
    const onExit = () => done(new Error(`process exited before ${re}:\n${r.output.join('\n')}`));
    const readers = [r.proc.stdout, r.proc.stderr].map((s) => createInterface({ input: s! }).on('line', onLine));
    r.proc.once('exit', onExit);
    function done(err?: Error, m?: RegExpMatchArray) {
      clearTimeout(timer);
      readers.forEach((rl) => rl.off('line', onLine));
      r.proc.off('exit', onExit);
      if (err) rej(err);
      else res(m!);
    }
  });
}

/** A running nats-server and its client URL. */
export interface NatsServer extends Running {
  readonly url: string;
  readonly port: number;
}

/** Starts nats-server with JetStream on a random port, using infra's config with optional overrides. */
export async function startNatsServer(opts: { maxPayload?: number } = {}): Promise<NatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rl-nats-'));
  const conf = join(dir, 'nats.conf');
  // nats-server resolves `include` relative to the including file, so inline infra's config instead.
  // Its fixed ports are dropped for a random loopback port.
  const base = readFileSync(join(ROOT, 'infra/nats/nats.conf'), 'utf8').replace(/^\s*(port|http_port)\s*:.*$/gm, '');
  const lines = [base, 'host: 127.0.0.1', 'port: -1'];
  if (opts.maxPayload !== undefined) lines.push(`max_payload: ${opts.maxPayload}`);
  writeFileSync(conf, `${lines.join('\n')}\n`);
  const r = launch('nats-server', ['-c', conf, '-js', '--store_dir', join(dir, 'js')], { cwd: dir });
  const m = await waitForLine(r, /Listening for client connections on [\d.]+:(\d+)/, 15_000);
  const port = Number(m[1]);
  return {
    ...r,
    url: `nats://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await r.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A service process and its HTTP base URL. */
export interface ServiceProcess extends Running {
  readonly baseUrl: string;
}

/**
 * A trainer keeps a test's jobs in the test's own directory: it is the output
 * root (unless given), and data is read from it and the repository (fixtures).
 * The user a root trainer drops to must reach it: mkdtemp makes directories 0700.
 */
function trainerRoots(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base = env['TRAINER_BASE_DIR'];
  if (base === undefined) return {};
  const output = env['TRAINER_OUTPUT_ROOT'] ?? base;
  if (output.startsWith(`${tmpdir()}/`)) {
    mkdirSync(output, { recursive: true });
    for (let dir = output; dir !== tmpdir(); dir = dirname(dir)) chmodSync(dir, 0o755);
  }
  return { TRAINER_OUTPUT_ROOT: output, TRAINER_DATA_ROOTS: `${base},${ROOT}`, TRAINER_MODEL_ROOTS: base };
}

/** Starts `services/<name>` (`node src/main.ts`) on a free HTTP port; resolves once it logs `listening`. */
export async function startService(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const roots = name === 'trainer' ? trainerRoots(env) : {};
  const r = launch(process.execPath, ['src/main.ts'], {
    cwd: join(ROOT, 'services', name),
    env: { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...roots, ...env },
  });
  const m = await waitForLine(r, /"port":(\d+).*"msg":"listening"/, 30_000);
  return { ...r, baseUrl: `http://127.0.0.1:${m[1]}` };
}
