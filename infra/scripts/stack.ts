// `make up` / `make down` / `make status`: the local stack in the background.
// Starts nats-server (if nothing listens on its port yet) and every service that
// has src/main.ts, records what it started in .run/pids, waits for each /readyz.
// `down` stops exactly the processes recorded there, nothing else.
// Closed by default: everything listens on loopback (the services' HOST default,
// nats.conf's host), and NATS runs with per-service users and permissions
// (infra/nats/auth.conf) whose passwords are generated once into .run/secrets.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { NATS_USERS, SECURED_NATS_CONF, STACK_DIR, STACK_SECRETS, loadOrCreatePasswords, natsClientEnv, natsServerEnv, type NatsUser } from './nats-users.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const RUN = STACK_DIR;
const PIDS = join(RUN, 'pids');
const LOGS = join(RUN, 'logs');
const NATS_PORT = Number(process.env.NATS_PORT ?? 4222);
const NATS_MONITOR_PORT = Number(process.env.NATS_MONITOR_PORT ?? 8222);
const READY_TIMEOUT_MS = 60_000;

// The stack's generation service serves the weights trainers publish (see
// services/trainer: rollout.weights_bucket / weights_name defaults).
const SERVICE_ENV: Record<string, NodeJS.ProcessEnv> = {
  generation: { POLICY_OBJECT_STORE: process.env.POLICY_OBJECT_STORE ?? 'rl-policy', POLICY_OBJECT_NAME: process.env.POLICY_OBJECT_NAME ?? 'actor' },
};

interface ServiceEntry {
  name: string;
  dir: string;
  port: number;
}

// RL_STACK_SERVICES=a,b starts only those services (tests start a small stack).
const ONLY = process.env.RL_STACK_SERVICES?.split(',').map((s) => s.trim());

function services(): ServiceEntry[] {
  const base = join(ROOT, 'services');
  return readdirSync(base)
    .filter((n) => existsSync(join(base, n, 'src/main.ts')) && (ONLY === undefined || ONLY.includes(n)))
    .map((name) => {
      const pkg = JSON.parse(readFileSync(join(base, name, 'package.json'), 'utf8')) as { rl?: { port?: number } };
      const envPort = process.env[`${name.toUpperCase().replaceAll('-', '_')}_PORT`];
      return { name, dir: join(base, name), port: Number(envPort ?? pkg.rl?.port ?? 0) };
    });
}

function natsUser(service: string): NatsUser {
  const user = NATS_USERS.find((u) => u === service);
  if (user === undefined) throw new Error(`service ${service} has no NATS user: add one to infra/nats/auth.conf and infra/scripts/nats-users.ts`);
  return user;
}

function alive(pid: number, marker: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return false;
  }
}

function readPid(name: string): number | undefined {
  const file = join(PIDS, `${name}.pid`);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect({ host: '127.0.0.1', port, timeout: 500 });
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
    s.once('timeout', () => {
      s.destroy();
      res(false);
    });
  });
}

function startDetached(name: string, cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const log = openSync(join(LOGS, `${name}.log`), 'a');
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', log, log] });
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  writeFileSync(join(PIDS, `${name}.pid`), String(child.pid));
  return child.pid;
}

/** Polls `check` until it passes; fails at once, with the log's tail, if the process `pid` dies. */
async function waitFor(what: string, check: () => Promise<boolean>, logFile: string, pid?: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const tail = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '');
  while (Date.now() < deadline) {
    if (await check()) return;
    if (pid !== undefined && !existsSync(`/proc/${pid}`)) throw new Error(`${what} exited during start-up:\n${tail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready after ${READY_TIMEOUT_MS} ms\n${tail()}`);
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return r.ok;
  } catch {
    return false;
  }
}

async function up(): Promise<void> {
  mkdirSync(PIDS, { recursive: true });
  mkdirSync(LOGS, { recursive: true });
  const passwords = loadOrCreatePasswords(STACK_SECRETS);
  if (await portOpen(NATS_PORT)) {
    console.log(`nats-server      already listening on :${NATS_PORT} (left alone)`);
  } else {
    const pid = startDetached(
      'nats',
      'nats-server',
      ['-c', SECURED_NATS_CONF, '-p', String(NATS_PORT), '-m', String(NATS_MONITOR_PORT), '--store_dir', join(RUN, 'nats')],
      ROOT,
      { ...process.env, ...natsServerEnv(passwords) },
    );
    await waitFor('nats-server', () => httpOk(`http://127.0.0.1:${NATS_MONITOR_PORT}/healthz`), join(LOGS, 'nats.log'), pid);
    console.log(`nats-server      nats://127.0.0.1:${NATS_PORT}  monitor http://127.0.0.1:${NATS_MONITOR_PORT}  (users: ${STACK_SECRETS})`);
  }
  const natsUrl = `nats://127.0.0.1:${NATS_PORT}`;
  await Promise.all(
    services().map(async (s) => {
      let pid = readPid(s.name);
      if (pid === undefined || !alive(pid, 'src/main.ts')) {
        pid = startDetached(s.name, process.execPath, ['src/main.ts'], s.dir, {
          ...process.env,
          ...SERVICE_ENV[s.name],
          ...natsClientEnv(natsUser(s.name), passwords),
          PORT: String(s.port),
          NATS_URL: natsUrl,
          TRAINER_BASE_DIR: ROOT,
        });
      }
      await waitFor(s.name, () => httpOk(`http://127.0.0.1:${s.port}/readyz`), join(LOGS, `${s.name}.log`), pid);
    }),
  );
  for (const s of services()) {
    console.log(`${s.name.padEnd(16)} http://127.0.0.1:${s.port}  (docs /docs, ready /readyz, logs ${relative(ROOT, join(LOGS, `${s.name}.log`))})`);
  }
}

async function stopPid(name: string, marker: string): Promise<void> {
  const pid = readPid(name);
  rmSync(join(PIDS, `${name}.pid`), { force: true });
  if (pid === undefined || !alive(pid, marker)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && alive(pid, marker)) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid, marker)) process.kill(pid, 'SIGKILL');
  console.log(`stopped ${name} (pid ${pid})`);
}

async function down(): Promise<void> {
  await Promise.all(services().map((s) => stopPid(s.name, 'src/main.ts')));
  await stopPid('nats', 'nats-server');
}

async function status(): Promise<void> {
  for (const s of services()) {
    console.log(`${s.name.padEnd(16)} ${(await httpOk(`http://127.0.0.1:${s.port}/readyz`)) ? 'ready' : 'down'}  :${s.port}`);
  }
  console.log(`${'nats-server'.padEnd(16)} ${(await portOpen(NATS_PORT)) ? 'up' : 'down'}  :${NATS_PORT}`);
}

const commands: Record<string, () => Promise<void>> = { up, down, status };
const cmd = commands[process.argv[2] ?? ''];
if (cmd === undefined) {
  console.error('usage: node infra/scripts/stack.ts up|down|status');
  process.exit(2);
}
await cmd();
