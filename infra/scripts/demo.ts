// `make run`: with the stack up, score the sample items end to end twice, once
// over HTTP and once over NATS, through the user CLI, and show them side by side.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { STACK_SECRETS, loadOrCreatePasswords, natsClientEnv } from './nats-users.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const items = join(ROOT, 'infra/demo/sample-items.jsonl');
const cli = join(ROOT, 'shared/client/bin/rl-rewards.ts');

// The stack's NATS admits users only: the CLI connects as `client` (see infra/nats/auth.conf).
const natsClient = natsClientEnv('client', loadOrCreatePasswords(STACK_SECRETS));

function score(args: string[]): Array<Record<string, unknown>> {
  const out = execFileSync(process.execPath, [cli, 'score', '--file', items, ...args], {
    env: { ...process.env, ...natsClient },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 120_000,
  });
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// Code rewards carry per-case timings in `extra`, which differ run to run: compare the verdicts.
const verdict = (r: Record<string, unknown> | undefined) =>
  JSON.stringify(r === undefined ? null : 'error' in r ? (r.error as { code: string }).code : r.score);

const http = score(['--url', process.env.RL_REWARDS_URL ?? 'http://127.0.0.1:8101']);
const nats = score(['--nats', process.env.NATS_URL ?? 'nats://127.0.0.1:4222']);
const inputs = readFileSync(items, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { data_source: string; solution_str: string });

console.log('\nRewards scored by reward-rules over HTTP and over NATS (code data sources forwarded to reward-sandbox):\n');
console.log(`${'data_source'.padEnd(20)} ${'solution (start)'.padEnd(42)} ${'HTTP'.padEnd(28)} NATS agrees`);
inputs.forEach((item, i) => {
  const r = http[i] ?? {};
  const shown = 'error' in r ? `error ${(r.error as { code: string }).code}` : `score ${String(r.score)}`;
  const same = verdict(r) === verdict(nats[i]);
  console.log(`${item.data_source.padEnd(20)} ${JSON.stringify(item.solution_str).slice(0, 40).padEnd(42)} ${shown.padEnd(28)} ${same ? 'yes' : 'NO'}`);
});
const agree = http.every((r, i) => verdict(r) === verdict(nats[i]));
console.log(`\n${http.length} items; HTTP and NATS ${agree ? 'agree on every item' : 'DISAGREE'}.`);
console.log('Try it yourself: npx rl-rewards score --data-source openai/gsm8k --solution "#### 18" --ground-truth 18');
console.log('Docs: http://127.0.0.1:8101/docs   Stop the stack: make down');
if (!agree) process.exit(1);
