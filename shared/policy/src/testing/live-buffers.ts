// Test helper: counts jax-js device buffers alive, the equivalent of
// tf.memory().numTensors. jax-js does not export its backend, so this finds
// the internal chunk that does (the name is hashed per release) and wraps the
// wasm backend's malloc/incRef/decRef. Only for tests.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureTensorBackend } from '../model/backend.ts';

interface SlotBackend {
  malloc(size: number, initialData?: Uint8Array): number;
  incRef(slot: number): void;
  decRef(slot: number): void;
}

let counter: { live(): number } | undefined;

/** Starts counting (once per process) and returns a function reporting the live buffer count. */
export async function trackLiveBuffers(): Promise<() => number> {
  await ensureTensorBackend();
  if (counter === undefined) {
    const indexPath = fileURLToPath(import.meta.resolve('@jax-js/jax'));
    const match = readFileSync(indexPath, 'utf8').match(/\b(\w+) as getBackend\b[^;]*?from "\.\/(backend-[\w-]+\.js)"/);
    if (match === null) throw new Error('cannot locate jax-js getBackend (library layout changed)');
    const chunk = (await import(pathToFileURL(join(dirname(indexPath), match[2] as string)).href)) as Record<string, unknown>;
    const getBackend = chunk[match[1] as string] as (device: string) => SlotBackend;
    const backend = getBackend('wasm');
    const refs = new Map<number, number>();
    const malloc = backend.malloc.bind(backend);
    const incRef = backend.incRef.bind(backend);
    const decRef = backend.decRef.bind(backend);
    backend.malloc = (size, initialData) => {
      const slot = malloc(size, initialData);
      refs.set(slot, 1);
      return slot;
    };
    backend.incRef = (slot) => {
      incRef(slot);
      refs.set(slot, (refs.get(slot) ?? 0) + 1);
    };
    backend.decRef = (slot) => {
      decRef(slot);
      const left = (refs.get(slot) ?? 0) - 1;
      if (left <= 0) refs.delete(slot);
      else refs.set(slot, left);
    };
    counter = { live: () => refs.size };
  }
  const c = counter;
  return () => c.live();
}
