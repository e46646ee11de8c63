// `make up` as it runs, on a small stack of its own (RL_STACK_DIR, free ports,
// two services): everything listens on loopback only, NATS admits only the
// generated users (kept in a 0600 file), a client user's code item is scored
// by reward-rules forwarding to the sandbox under the permissions, and `down`
// stops what `up` started.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { requestJson } from '@rl/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROOT } from './support/processes.ts';

const run = promisify(execFile);
const STACK = join(ROOT, 'infra/scripts/stack.ts');
const dir = mkdtempSync(join(tmpdir(), 'rl-stack-'));
let env: NodeJS.ProcessEnv;
let ports: { nats: number; monitor: number; rules: number; sandbox: number };

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

/** Local addresses (hex, as /proc/net/tcp{,6} write them) of the sockets listening on `port`. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[3] === '0A' && c[1]?.endsWith(`:${hexPort}`))
      .map((c) => c[1]!.split(':')[0]!),
  );
}
const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000']); // 127.0.0.1, ::1

const stack = (cmd: 'up' | 'down') => run(process.execPath, [STACK, cmd], { cwd: ROOT, env, timeout: 120_000 });

beforeAll(async () => {
  ports = { nats: await freePort(), monitor: await freePort(), rules: await freePort(), sandbox: await freePort() };
  env = {
    ...process.env,
    RL_STACK_DIR: dir,
    RL_STACK_SERVICES: 'reward-rules,reward-sandbox',
    NATS_PORT: String(ports.nats),
    NATS_MONITOR_PORT: String(ports.monitor),
    REWARD_RULES_PORT: String(ports.rules),
    REWARD_SANDBOX_PORT: String(ports.sandbox),
    SCORE_WORKERS: '1',
  };
  // Whatever the caller's shell says, the stack's own settings apply.
  for (const k of ['HOST', 'AUTH_TOKEN', 'ALLOW_UNAUTHENTICATED', 'NATS_USER', 'NATS_PASS', 'NATS_URL']) delete env[k];
  await stack('up');
}, 150_000);

afterAll(async () => {
  await stack('down').catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the local stack (infra/scripts/stack.ts)', () => {
  it('listens on loopback only, NATS and its monitor included', async () => {
    for (const port of Object.values(ports)) {
      const addrs = listeners(port);
      expect(addrs.length, `nothing listens on ${port}`).toBeGreaterThan(0);
      for (const a of addrs) expect(LOOPBACK.has(a), `port ${port} listens on ${a}`).toBe(true);
    }
    for (const port of [ports.rules, ports.sandbox]) expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  });

  it('keeps the generated NATS passwords in a file only its owner reads', () => {
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('admits only its users on NATS; the client user gets code scored through reward-rules and the sandbox', async () => {
    const url = `nats://127.0.0.1:${ports.nats}`;
    await expect(connect({ servers: url, timeout: 5000 })).rejects.toThrow(/authorization/i);
    const { nats } = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as { nats: Record<string, string> };
    const nc = await connect({ servers: url, user: 'client', pass: nats.client, inboxPrefix: '_INBOX.client', timeout: 5000 });
    try {
      const items = [
        { data_source: 'openai/gsm8k', solution_str: '#### 42', ground_truth: '42' },
        { data_source: 'codecontests', solution_str: '```python\nprint(input()[::-1])\n```', ground_truth: { inputs: ['abc\n'], outputs: ['cba\n'] } },
      ];
      const reply = await requestJson(
        nc,
        'reward.rules.score',
        { items },
        { timeoutMs: 60_000, response: z.object({ results: z.array(z.object({ score: z.number() })) }) },
      );
      expect(reply.results.map((r) => r.score)).toEqual([1, 1]);
    } finally {
      await nc.close();
    }
  });

  it('down stops what up started', async () => {
    const pids = ['nats', 'reward-rules', 'reward-sandbox'].map((n) => Number(readFileSync(join(dir, 'pids', `${n}.pid`), 'utf8')));
    await stack('down');
    for (const pid of pids) expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')).toBe(false);
  });
});
