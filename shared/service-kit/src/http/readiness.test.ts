import { describe, expect, it } from 'vitest';
import { createTestApp } from '../testing/index.ts';
import type { Readiness } from './app.ts';

const appWith = (readiness: () => Readiness) => createTestApp({ maxBodyBytes: 1024, readiness });

describe('/readyz', () => {
  it('answers 200 with the checks, and no details key when there are none', async () => {
    const res = await appWith(() => ({ ready: true, checks: { nats: true } })).request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { nats: true } });
  });

  it('shows non-gating details beside the checks, ready or not', async () => {
    const details = { memory_cgroups: 'none', problems: ['no memory cgroup'] };
    const ok = await appWith(() => ({ ready: true, checks: { sandbox: true }, details })).request('/readyz');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ready', checks: { sandbox: true }, details });
    const down = await appWith(() => ({ ready: false, checks: { sandbox: false }, details })).request('/readyz');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'not_ready', checks: { sandbox: false }, details });
  });
});
