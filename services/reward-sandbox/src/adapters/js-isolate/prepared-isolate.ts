// Fresh isolates, prepared ahead of demand (inside a worker process, see
// worker/isolate-slot.ts). Every run still gets a brand-new isolate that no other
// program has touched; what is done early is only the program-independent work
// (V8 isolate + context creation and evaluating the runtime shim), which is most
// of the per-run latency.

import ivm from 'isolated-vm';
import { SHIM_SOURCE } from './shim-source.ts';

/** Script name of the runtime in stack traces (looks like Node's internal frames). */
export const SHIM_FILENAME = 'node:internal/sandbox';

/** An isolate with a context and the runtime installed, never used by any program yet. */
export interface PreparedIsolate {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** The runtime's control function (`ctl(op, ...)`). */
  readonly ctl: ivm.Reference<(...args: unknown[]) => unknown>;
  /** Receives isolated-vm's catastrophic errors for this isolate (see {@link prepareIsolate}). */
  onCatastrophe: (message: string) => void;
}

/** Called for every catastrophic isolate error, whichever run it hits (service-wide accounting). */
export type CatastropheListener = (message: string) => void;

// V8 code cache of the shim, produced by the first isolate and reused by the rest.
let shimCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

/**
 * Creates an isolate with `memoryMb` heap limit, a context and the runtime shim evaluated.
 * `warm` also runs the shim's hot paths once, which only pays off ahead of demand.
 */
export async function prepareIsolate(memoryMb: number, warm = false, listener?: CatastropheListener): Promise<PreparedIsolate> {
  // Some V8 out-of-memory paths (a hash table growing past the limit in one step) are
  // fatal. Without a handler isolated-vm aborts the whole process; with one, only the
  // isolate's thread is parked forever. The run reports memory exhaustion and the
  // listener lets the service account for the leaked isolate.
  let prepared: PreparedIsolate | undefined;
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    onCatastrophicError: (message: string) => {
      listener?.(message);
      prepared?.onCatastrophe(message);
    },
  });
  try {
    const context = await isolate.createContext();
    const script = await isolate.compileScript(SHIM_SOURCE, {
      filename: SHIM_FILENAME,
      ...(shimCache === undefined ? { produceCachedData: true } : { cachedData: shimCache }),
    });
    const produced = (script as ivm.Script & ivm.CachedDataResult).cachedData;
    if (shimCache === undefined && produced !== undefined) shimCache = produced;
    const ctl = (await script.run(context, { reference: true, release: true, timeout: 5000 })) as PreparedIsolate['ctl'];
    prepared = { isolate, context, ctl, onCatastrophe: () => {} };
    if (warm) await warmIsolate(prepared);
    return prepared;
  } catch (err) {
    isolate.dispose();
    throw err;
  }
}

/** Runs the shim's hot paths once in a prepared isolate (~1.5 ms; it saves about that on the first run). */
export async function warmIsolate(vm: PreparedIsolate): Promise<void> {
  await vm.ctl.apply(undefined, ['warm'], { timeout: 5000 });
}

/** Disposes an isolate unless it already is. */
export function disposeQuietly(isolate: ivm.Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // Already disposed concurrently.
  }
}
