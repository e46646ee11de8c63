import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

let nats: NatsServer;
const running: ServiceProcess[] = [];
beforeAll(async () => {
  nats = await startNatsServer();
});
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  await nats?.stop();
});

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

describe("reward-rules main thread's heap flags", () => {
  it('re-executes itself with --max-semi-space-size under the same pid (no child process) and serves', async () => {
    const svc = await startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1', MAIN_SEMI_SPACE_MB: '4' });
    running.push(svc);
    const args = cmdline(svc.proc.pid!);
    expect(args).toContain('--max-semi-space-size=4');
    expect(args.at(-1)).toMatch(/reward-rules\/src\/main\.ts$/);
    expect(readFileSync(`/proc/${svc.proc.pid}/task/${svc.proc.pid}/children`, 'utf8').trim()).toBe('');
    const res = await fetch(`${svc.baseUrl}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ data_source: 'openai/gsm8k', solution_str: '#### 18', ground_truth: '18' }] }),
    });
    expect(await res.json()).toEqual({ results: [{ score: 1, extra: { acc: true, pred: '18' } }], deterministic: true });
  });

  it('keeps the command as started when MAIN_SEMI_SPACE_MB=0', async () => {
    const svc = await startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1', MAIN_SEMI_SPACE_MB: '0' });
    running.push(svc);
    expect(cmdline(svc.proc.pid!).some((a) => a.startsWith('--max-semi-space-size'))).toBe(false);
  });
});
