// The NATS users of infra/nats/auth.conf and their passwords: the local stack
// (stack.ts) generates them once under .run/, starts nats-server with them in
// its environment, and hands each service its own; compose and Kubernetes
// take the same variables from their secrets.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The local stack's state: pids, logs, JetStream store, secrets. RL_STACK_DIR moves it (tests run a stack of their own). */
export const STACK_DIR = process.env.RL_STACK_DIR ?? join(ROOT, '.run');

/** Where the local stack keeps its generated secrets (mode 0600). */
export const STACK_SECRETS = join(STACK_DIR, 'secrets.json');

/** The server config with users and permissions (nats.conf + auth.conf). */
export const SECURED_NATS_CONF = join(ROOT, 'infra/nats/secured.conf');

/** One user per service, named like the service, and `client` for people and tools (CLIs, the demo). */
export const NATS_USERS = ['trainer', 'generation', 'reward-rules', 'reward-sandbox', 'reward-story', 'reward-model', 'client'] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** The environment variable auth.conf reads a user's password from, e.g. NATS_PASSWORD_REWARD_RULES. */
export const passwordVariable = (user: NatsUser): string => `NATS_PASSWORD_${user.toUpperCase().replaceAll('-', '_')}`;

/**
 * A fresh password per user (192 random bits each). nats-server parses an
 * environment value like a config value (`7e3...` would be a number), so each
 * starts with letters and holds only hex digits after them.
 */
export function generatePasswords(): Record<NatsUser, string> {
  return Object.fromEntries(NATS_USERS.map((u) => [u, `rl${randomBytes(24).toString('hex')}`])) as Record<NatsUser, string>;
}

/** nats-server's environment for secured.conf. */
export function natsServerEnv(passwords: Record<NatsUser, string>): Record<string, string> {
  return Object.fromEntries(NATS_USERS.map((u) => [passwordVariable(u), passwords[u]]));
}

/** A service's (or client's) connection settings for user `user`, as the kit reads them. */
export function natsClientEnv(user: NatsUser, passwords: Record<NatsUser, string>): Record<string, string> {
  return { NATS_USER: user, NATS_PASS: passwords[user] };
}

/**
 * The passwords stored in `file` (mode 0600), created there on first use, so a
 * server started by an earlier `make up` and the services started now agree.
 */
export function loadOrCreatePasswords(file: string): Record<NatsUser, string> {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { nats?: Partial<Record<NatsUser, string>> };
    const nats = stored.nats ?? {};
    if (NATS_USERS.every((u) => typeof nats[u] === 'string' && nats[u] !== '')) return nats as Record<NatsUser, string>;
  }
  const passwords = generatePasswords();
  writeFileSync(file, `${JSON.stringify({ nats: passwords }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync's mode applies only to a file it creates
  return passwords;
}
