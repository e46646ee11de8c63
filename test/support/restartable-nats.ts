// A nats-server that a test can kill and start again in the middle of a run:
// the same port (clients reconnect to the URL they know) and the same
// JetStream store directory on disk, so streams such as the weights bucket
// survive the restart as they would on a real host.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launch, waitForLine, type Running } from './processes.ts';

/** How long one start may take until the server accepts clients. */
const START_TIMEOUT_MS = 15_000;

/** A nats-server with JetStream whose process can be replaced. */
export interface RestartableNatsServer {
  readonly url: string;
  readonly port: number;
  /** The current process (a new one after each restart). */
  current(): Running;
  /** SIGKILLs the server (no goodbye to clients); the store directory stays. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and store; resolves once it is ready for clients. */
  restart(): Promise<void>;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

/** Writes infra's nats config with `port` (or -1: any free port) and starts a server on it with a store dir under `dir`. */
async function startOn(dir: string, port: number): Promise<{ running: Running; port: number }> {
  const conf = join(dir, 'nats.conf');
  const base = readFileSync(join(ROOT, 'infra/nats/nats.conf'), 'utf8').replace(/^\s*(port|http_port)\s*:.*$/gm, '');
  writeFileSync(conf, `${base}\nhost: 127.0.0.1\nport: ${port}\n`);
  const running = launch('nats-server', ['-c', conf, '-js', '--store_dir', join(dir, 'js')], { cwd: dir });
  const m = await waitForLine(running, /Listening for client connections on [\d.]+:(\d+)/, START_TIMEOUT_MS);
  // JetStream has restored its streams once the server says it is ready.
  await waitForLine(running, /Server is ready/, START_TIMEOUT_MS);
  return { running, port: Number(m[1]) };
}

/** Starts a restartable nats-server on a free loopback port. */
export async function startRestartableNatsServer(): Promise<RestartableNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rl-nats-restart-'));
  const first = await startOn(dir, -1);
  let running = first.running;
  const port = first.port;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    current: () => running,
    kill: () => running.stop(),
    restart: async () => {
      await running.stop();
      running = (await startOn(dir, port)).running;
    },
    stop: async () => {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
