import { afterEach, describe, expect, it } from 'vitest';
import { createWebWorkerClass, type WebWorkerLike } from './web-worker-shim.ts';

// A stand-in for jax-js's worker script: one reply per message, saying where it ran
// (inside a thread the prelude makes `self` the global scope, which has postMessage).
const SCRIPT = `
self.onmessage = (e) => {
  const m = e.data;
  const where = typeof self.postMessage === 'function' ? 'thread' : 'inline';
  if (m.type === 'init') postMessage({ type: 'ready', where, memory: m.memory instanceof SharedArrayBuffer });
  else postMessage({ ok: true, where, size: (m.end ?? 0) - (m.begin ?? 0) });
};
`;

const urls: string[] = [];
const workers: WebWorkerLike[] = [];

function scriptUrl(): string {
  const url = URL.createObjectURL(new Blob([SCRIPT], { type: 'application/javascript' }));
  urls.push(url);
  return url;
}

/** Posts `data` and resolves with the one reply (jax-js sets onmessage before each post, as here). */
function request(worker: WebWorkerLike, data: unknown): Promise<Record<string, unknown>> {
  const { promise, resolve } = Promise.withResolvers<Record<string, unknown>>();
  worker.onmessage = (e) => resolve(e.data as Record<string, unknown>);
  worker.postMessage(data);
  return promise;
}

afterEach(() => {
  for (const w of workers.splice(0)) w.terminate();
  for (const u of urls.splice(0)) URL.revokeObjectURL(u);
});

describe('web worker shim', () => {
  it("runs the first worker of a pool inline and sends only large kernel chunks to the others' threads", async () => {
    const Worker = createWebWorkerClass({ threads: 2, minThreadElements: 1000 });
    const url = scriptUrl();
    const [first, second] = [new Worker(url), new Worker(url)] as [WebWorkerLike, WebWorkerLike];
    workers.push(first, second);
    expect(Worker.created).toBe(2);
    // jax-js sends its shared WebAssembly.Memory; any shared memory shows it reaches both sides.
    const memory = new SharedArrayBuffer(16);

    expect(await request(first, { type: 'init', memory })).toEqual({ type: 'ready', where: 'inline', memory: true });
    expect(await request(second, { type: 'init', memory })).toEqual({ type: 'ready', where: 'thread', memory: true });
    expect(await request(first, { type: 'kernel', begin: 0, end: 5000 })).toEqual({ ok: true, where: 'inline', size: 5000 });
    expect(await request(second, { type: 'kernel', begin: 0, end: 5000 })).toEqual({ ok: true, where: 'thread', size: 5000 });
    expect(await request(second, { type: 'kernel', begin: 0, end: 999 })).toEqual({ ok: true, where: 'inline', size: 999 });
    expect(await request(second, { type: 'routine' })).toMatchObject({ where: 'inline' });
  });

  it('replies after postMessage returns, once per message, in order', async () => {
    const Worker = createWebWorkerClass({ threads: 1 });
    const worker = new Worker(scriptUrl());
    workers.push(worker);
    const replies: unknown[] = [];
    const done = Promise.withResolvers<void>();
    worker.onmessage = (e) => {
      replies.push(e.data);
      if (replies.length === 2) done.resolve();
    };
    worker.postMessage({ type: 'kernel', begin: 0, end: 1 });
    worker.postMessage({ type: 'kernel', begin: 0, end: 2 });
    expect(replies).toEqual([]);
    await done.promise;
    expect(replies).toEqual([
      { ok: true, where: 'inline', size: 1 },
      { ok: true, where: 'inline', size: 2 },
    ]);
  });

  it('rejects a URL that is not a live blob', () => {
    const Worker = createWebWorkerClass({ threads: 2 });
    expect(() => new Worker('blob:nodedata:00000000-0000-0000-0000-000000000000')).toThrow(TypeError);
  });
});
