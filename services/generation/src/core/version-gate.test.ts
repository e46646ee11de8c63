import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { type ServedVersion, VersionGate } from './version-gate.ts';

/** Whether `p` has settled once every queued microtask and callback before it has run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

function gate(exclusive: boolean) {
  const retired: ServedVersion[] = [];
  return { g: new VersionGate({ exclusive, onRetired: (s) => retired.push(s) }), retired };
}

describe('VersionGate', () => {
  it('refuses trajectories before any version is served', async () => {
    const { g } = gate(true);
    await expect(g.lease()).rejects.toMatchObject({ code: ErrorCode.Unavailable, message: 'no policy version has reached the inference server yet' });
  });

  it('full weights: a sync waits for trajectories on the old version, and new ones wait for the sync', async () => {
    const { g, retired } = gate(true);
    await g.beginSync('v1');
    g.commit({ version: 'v1', model: 'm' });
    const running = await g.lease();
    expect(running).toMatchObject({ version: 'v1', model: 'm' });

    const sync = g.beginSync('v2');
    expect(await settled(sync)).toBe(false); // v1 still samples
    const next = g.lease();
    expect(await settled(next)).toBe(false); // v2 is coming: no new trajectory on v1
    running.release();
    running.release(); // twice is once
    expect(await settled(sync)).toBe(true);
    expect(await settled(next)).toBe(false);
    g.commit({ version: 'v2', model: 'm' });
    expect(await next).toMatchObject({ version: 'v2' });
    expect(retired.map((s) => s.version)).toEqual(['v1']);
    expect(g.current()).toEqual({ version: 'v2', model: 'm' });
  });

  it('adapters: the new version loads beside the old one, which retires when its last trajectory ends', async () => {
    const { g, retired } = gate(false);
    await g.beginSync('v1');
    g.commit({ version: 'v1', model: 'm@v1' });
    const running = await g.lease();
    await g.beginSync('v2'); // does not wait for v1's trajectories
    g.commit({ version: 'v2', model: 'm@v2' });
    expect(await g.lease()).toMatchObject({ version: 'v2', model: 'm@v2' });
    expect(retired).toEqual([]);
    running.release();
    expect(retired).toEqual([{ version: 'v1', model: 'm@v1' }]);
  });

  it('a failed sync fails trajectories and waits for its version until a later version commits', async () => {
    const { g } = gate(true);
    await g.beginSync('v1');
    g.commit({ version: 'v1', model: 'm' });
    await g.beginSync('v2');
    const waiting = g.waitFor('v2', 60_000, new AbortController().signal);
    const error = new AppError(ErrorCode.Unavailable, 'policy version v2 did not reach the inference server: http://s/update_weights_from_disk: HTTP 400');
    g.fail('v2', error);
    await expect(waiting).rejects.toBe(error);
    await expect(g.lease()).rejects.toBe(error); // not the stale v1
    await expect(g.waitFor('v2', 60_000, new AbortController().signal)).rejects.toBe(error);

    await g.beginSync('v3');
    g.commit({ version: 'v3', model: 'm' });
    expect(await g.lease()).toMatchObject({ version: 'v3' });
    await expect(g.waitFor('v3', 60_000, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('waiting for a version ends when the caller gives up', async () => {
    const { g } = gate(true);
    const ac = new AbortController();
    const waiting = g.waitFor('v9', 60_000, ac.signal);
    expect(await settled(waiting)).toBe(false);
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ code: ErrorCode.Unavailable, message: 'policy version v9 wait was cancelled (serving none)' });
  });

  it('refuses a second sync while one runs', async () => {
    const { g } = gate(true);
    await g.beginSync('v1');
    await expect(g.beginSync('v2')).rejects.toMatchObject({ code: ErrorCode.Conflict });
  });
});
