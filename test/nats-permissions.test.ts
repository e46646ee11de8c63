// The bus as `make up`, compose and Kubernetes run it: nats-server started from
// infra/nats/secured.conf (nats.conf + auth.conf), one user per service. A
// reward service's credentials serve and call what reward-rules really does,
// and nothing else: no other service's subject, nobody's replies, no weights.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Objm } from '@nats-io/obj';
import { PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import { openWeightsStore } from '@rl/policy';
import {
  AppError,
  BaseConfig,
  ErrorCode,
  connectNatsFromConfig,
  createLogger,
  createMetrics,
  loadConfig,
  parsedEndpoint,
  requestJson,
  startNatsService,
  type NatsService,
} from '@rl/service-kit';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  NATS_USERS,
  SECURED_NATS_CONF,
  generatePasswords,
  natsClientEnv,
  natsServerEnv,
  passwordVariable,
  type NatsUser,
} from '../infra/scripts/nats-users.ts';
import { ROOT, launch, waitForLine, type Running } from './support/processes.ts';

const BUCKET = 'rl-policy'; // the bucket auth.conf lets generation read
const passwords = generatePasswords();
let server: Running;
let dir: string;
let url: string;
const conns: NatsConnection[] = [];
const services: NatsService[] = [];

/** A connection as the kit makes it from a service's environment (user, password, inbox prefix from the user). */
async function as(user: NatsUser): Promise<NatsConnection> {
  const config = loadConfig(BaseConfig, { NATS_URL: url, ...natsClientEnv(user, passwords) });
  const handle = await connectNatsFromConfig(config, `perm-test-${user}`);
  conns.push(handle!.nc);
  return handle!.nc;
}

/** Serves `subject` with the kit's NATS edge (queue group, $SRV discovery, chunked replies) as `nc`'s user. */
async function serve(nc: NatsConnection, name: string, subject: string, answer: (body: { n: number; pad?: string }) => object): Promise<void> {
  const svc = await startNatsService({
    nc,
    name,
    version: '0.0.0',
    description: 'permission test',
    endpoints: [parsedEndpoint({ name: 'echo', subject, request: z.object({ n: z.number(), pad: z.string().optional() }), handle: async (b) => answer(b) })],
    logger: createLogger({ service: name, level: 'silent' }),
    metrics: createMetrics(name),
    maxBodyBytes: 16 * 1024 * 1024,
    chunkTimeoutMs: 10_000,
  });
  services.push(svc);
}

/** The next permission violation the server reports to `nc` (call before the attempt). */
function nextViolation(nc: NatsConnection): Promise<PermissionViolationError> {
  return (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error' && s.error instanceof PermissionViolationError) return s.error;
    }
    throw new Error('connection closed without a permission violation');
  })();
}

const Reply = z.object({ by: z.string(), n: z.number(), size: z.number().optional() });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rl-nats-perm-'));
  server = launch('nats-server', ['-c', SECURED_NATS_CONF, '-a', '127.0.0.1', '-p', '-1', '-m', '-1', '--store_dir', join(dir, 'js')], {
    cwd: dir,
    env: natsServerEnv(passwords),
  });
  const m = await waitForLine(server, /Listening for client connections on [\d.]+:(\d+)/, 15_000);
  url = `nats://127.0.0.1:${m[1]}`;
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop(1000)));
  await Promise.all(conns.map((c) => c.close()));
  await server?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('NATS users and permissions (infra/nats/auth.conf)', () => {
  it('refuses a connection without credentials or with a wrong password', async () => {
    await expect(connectNatsFromConfig(loadConfig(BaseConfig, { NATS_URL: url }), 'anonymous')).rejects.toThrow(/authorization/i);
    const wrong = loadConfig(BaseConfig, { NATS_URL: url, NATS_USER: 'reward-rules', NATS_PASS: passwords.trainer });
    await expect(connectNatsFromConfig(wrong, 'impostor')).rejects.toThrow(/authorization/i);
  });

  it('a reward service serves its own subject and calls the sandbox, chunked both ways, with its own inboxes', async () => {
    const rules = await as('reward-rules');
    const sandbox = await as('reward-sandbox');
    const trainer = await as('trainer');
    await serve(sandbox, 'reward-sandbox', 'reward.sandbox.score', (b) => ({ by: 'sandbox', n: b.n, size: b.pad?.length ?? 0 }));
    // reward-rules forwards to the sandbox as it does for code data sources, and answers with a reply larger than max_payload.
    await serve(rules, 'reward-rules', 'reward.rules.score', async (b) => {
      const fwd = await requestJson(rules, 'reward.sandbox.score', { n: b.n, pad: 'x'.repeat(1_500_000) }, { timeoutMs: 10_000, response: Reply });
      return { by: 'rules', n: fwd.n, size: fwd.size, pad: 'y'.repeat(2_500_000) };
    });
    // A request larger than max_payload too: reward-rules pulls its chunks from the trainer's inbox.
    const out = await requestJson(trainer, 'reward.rules.score', { n: 7, pad: 'z'.repeat(2_000_000) }, { timeoutMs: 20_000, response: Reply });
    expect(out).toEqual({ by: 'rules', n: 7, size: 1_500_000 });
    // The $SRV discovery of the services framework answers under the same permissions (tools ask as client).
    const ping = await (await as('client')).request('$SRV.PING.reward-rules', '', { timeout: 60_000 });
    expect(ping.json<{ name: string }>().name).toBe('reward-rules');
  });

  it("a reward service cannot subscribe to (answer) another service's subject: the request finds no responder", async () => {
    const rules = await as('reward-rules');
    const trainer = await as('trainer');
    for (const subject of ['reward.story.score', 'rollout.generate', 'sandbox.run_code', 'policy.job-1.generate']) {
      const sub = rules.subscribe(subject, { queue: 'reward-story' });
      await rules.flush(); // the server answers the SUB before the PONG
      expect(sub.isClosed()).toBe(true);
      const closed = await sub.closed;
      expect(closed).toBeInstanceOf(PermissionViolationError);
      expect(closed).toMatchObject({ operation: 'subscription', subject });
    }
    // Nobody else serves reward.story.score in this test, so the refused subscription left it unanswered.
    // A deadline no answer can need: no_responders comes at once, and a loaded host must not turn it into a timeout.
    const err = await requestJson(trainer, 'reward.story.score', { n: 1 }, { timeoutMs: 60_000, response: Reply }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.NoResponders);
  });

  it('a request the user may not make fails at once with unauthorized, naming the subject', async () => {
    const rules = await as('reward-rules');
    const err = await requestJson(rules, 'reward.story.score', { n: 1 }, { timeoutMs: 60_000, response: Reply }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: ErrorCode.Unauthorized, retryable: false });
    expect((err as AppError).message).toContain('publish to reward.story.score');
    // A connection whose inboxes lie outside its user's own is refused its reply subscription just as clearly.
    const config = loadConfig(BaseConfig, { NATS_URL: url, ...natsClientEnv('reward-rules', passwords), NATS_INBOX_PREFIX: '_INBOX.trainer' });
    const misprefixed = (await connectNatsFromConfig(config, 'misprefixed'))!.nc;
    conns.push(misprefixed);
    const err2 = await requestJson(misprefixed, 'reward.sandbox.score', { n: 1 }, { timeoutMs: 60_000, response: Reply }).catch((e: unknown) => e);
    expect(err2).toMatchObject({ code: ErrorCode.Unauthorized });
    expect((err2 as AppError).message).toContain('subscribe to _INBOX.trainer.');
  });

  it("a reward service cannot read other users' replies or answer their chunk pulls", async () => {
    const rules = await as('reward-rules');
    for (const subject of ['_INBOX.>', '_INBOX.trainer.>', '_INBOX.generation.x', '>', '$O.>']) {
      const sub = rules.subscribe(subject);
      await rules.flush();
      expect(sub.isClosed()).toBe(true);
      expect(await sub.closed).toBeInstanceOf(PermissionViolationError);
    }
  });

  it('only the trainer writes the weights bucket; generation reads it; a reward service touches neither', async () => {
    const trainer = await as('trainer');
    const generation = await as('generation');
    const rules = await as('reward-rules');
    const written = await (await openWeightsStore(trainer, BUCKET)).putBlob({ name: 'actor', metadata: { version: 'v1' } }, new Uint8Array([1, 2, 3]));

    // Generation's read path (policy-provider + watchWeights): open, watch, info, fetch.
    const gos = await openWeightsStore(generation, BUCKET);
    const watch = await gos.watch({ includeHistory: true, ignoreDeletes: true });
    for await (const info of watch) {
      if (info.name === 'actor') break;
    }
    watch.stop();
    expect((await gos.info('actor'))?.nuid).toBe(written.nuid);
    expect([...((await gos.getBlob('actor')) ?? [])]).toEqual([1, 2, 3]);
    // ... but its puts, deletes and purges are refused.
    await expect(gos.putBlob({ name: 'actor' }, new Uint8Array([6, 6, 6]))).rejects.toBeInstanceOf(Error);
    await expect(gos.delete('actor')).rejects.toBeInstanceOf(Error);

    // A reward service cannot even reach JetStream, nor publish object chunks or metadata directly.
    await expect(new Objm(rules).create(BUCKET)).rejects.toBeInstanceOf(Error);
    for (const subject of [`$O.${BUCKET}.C.forged`, `$O.${BUCKET}.M.YWN0b3I=`, `$JS.API.STREAM.PURGE.OBJ_${BUCKET}`]) {
      const violation = nextViolation(rules);
      rules.publish(subject, new Uint8Array([6, 6, 6]));
      await expect(violation).resolves.toMatchObject({ operation: 'publish', subject });
    }

    // The object is the trainer's, unchanged.
    const after = await (await openWeightsStore(trainer, BUCKET)).info('actor');
    expect(after?.nuid).toBe(written.nuid);
    expect(after?.metadata).toEqual({ version: 'v1' });
  });

  it('auth.conf defines exactly the users nats-users.ts generates, and Kubernetes carries it verbatim', () => {
    const conf = readFileSync(join(ROOT, 'infra/nats/auth.conf'), 'utf8');
    expect([...conf.matchAll(/^\s*user:\s*"([^"]+)"/gm)].map((m) => m[1]).sort()).toEqual([...NATS_USERS].sort());
    for (const u of NATS_USERS) expect(conf).toContain(`password: $${passwordVariable(u)}\n`);
    const configMap = parseYaml(readFileSync(join(ROOT, 'infra/k8s/nats.yaml'), 'utf8').split(/^---$/m)[0]!) as { data: Record<string, string> };
    expect(configMap.data['auth.conf']).toBe(conf);
  });
});
