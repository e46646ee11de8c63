// Closed by default, open on purpose, against a real service process: bound
// beyond loopback without AUTH_TOKEN it refuses to start; told explicitly
// (ALLOW_UNAUTHENTICATED=true) it runs and says so in its log and /readyz;
// with a token it runs quietly and the token is required.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, launch, startService, type ServiceProcess } from './support/processes.ts';

const BASE = { NATS_ENABLED: 'false', SCORE_WORKERS: '1', PORT: '0', LOG_LEVEL: 'info' };
const SCORE = { items: [{ data_source: 'openai/gsm8k', solution_str: '#### 4', ground_truth: '4' }] };
const started: ServiceProcess[] = [];

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

const score = (svc: ServiceProcess, headers: Record<string, string> = {}) =>
  fetch(`${svc.baseUrl}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(SCORE) });

describe('a service bound beyond loopback', () => {
  it('refuses to start without AUTH_TOKEN, saying which settings fix it', async () => {
    const r = launch(process.execPath, ['src/main.ts'], { cwd: join(ROOT, 'services/reward-rules'), env: { ...BASE, HOST: '0.0.0.0' } });
    const code = await new Promise<number | null>((res) => r.proc.once('exit', (c) => res(c)));
    const out = r.output.join('\n');
    expect(code).not.toBe(0);
    expect(out).toContain('HOST=0.0.0.0 listens beyond loopback but AUTH_TOKEN is not set');
    expect(out).toContain('ALLOW_UNAUTHENTICATED=true');
    expect(out).not.toMatch(/"msg":"listening"/);
  });

  it('starts unauthenticated only when told, and says so in its log and /readyz details', async () => {
    const svc = await startService('reward-rules', { ...BASE, HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true' });
    started.push(svc);
    const warning = svc.output.map((l) => JSON.parse(l) as { level: string; msg: string }).find((l) => l.msg.startsWith('UNAUTHENTICATED'));
    expect(warning?.level).toBe('warn');
    expect(warning?.msg).toContain('HTTP listens on 0.0.0.0 without AUTH_TOKEN');
    const ready = (await (await fetch(`${svc.baseUrl}/readyz`)).json()) as { details?: { auth?: string } };
    expect(ready.details?.auth).toMatch(/^UNAUTHENTICATED: HTTP listens on 0\.0\.0\.0/);
    expect((await score(svc)).status).toBe(200);
  });

  it('starts quietly with AUTH_TOKEN, and then requires it', async () => {
    const svc = await startService('reward-rules', { ...BASE, HOST: '0.0.0.0', AUTH_TOKEN: 'a-long-enough-token' });
    started.push(svc);
    expect(svc.output.some((l) => l.includes('UNAUTHENTICATED'))).toBe(false);
    const ready = (await (await fetch(`${svc.baseUrl}/readyz`)).json()) as { details?: unknown };
    expect(ready.details).toBeUndefined();
    expect((await score(svc)).status).toBe(401);
    expect((await score(svc, { authorization: 'Bearer a-long-enough-token' })).status).toBe(200);
  });
});
