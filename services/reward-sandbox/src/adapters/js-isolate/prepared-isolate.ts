// Fresh isolates, prepared ahead of demand. Every run still gets a brand-new
// isolate that no other program has touched; what is done early is only the
// program-independent work (V8 isolate + context creation and evaluating the
// runtime shim), which is most of the per-run latency.

import ivm from 'isolated-vm';
import { ASSERT_SOURCE } from './assert-source.ts';
import { BUILTINS_SOURCE } from './builtins-source.ts';
import { COMPARE_SOURCE } from './compare-source.ts';
import { ENTRY_SOURCE } from './entry-source.ts';
import { FORMAT_SOURCE } from './format-source.ts';
import { INSPECT_PARTS_SOURCE } from './inspect-parts-source.ts';
import { INSPECT_SOURCE } from './inspect-source.ts';
import { INSPECT_TYPES_SOURCE } from './inspect-types-source.ts';
import { IO_SOURCE } from './io-source.ts';
import { LOOP_SOURCE } from './loop-source.ts';
import { RUNTIME_SOURCE } from './runtime-source.ts';

/** Delay before background work (refill, dispose) after a run, so its reply is written first. */
const AFTER_REPLY_MS = 1;

// Fragment order matters only for top-level statements (classes, consts, objects
// built at load time): each fragment may use what earlier ones define.
const FRAGMENTS = [
  INSPECT_SOURCE,
  INSPECT_TYPES_SOURCE,
  INSPECT_PARTS_SOURCE,
  FORMAT_SOURCE,
  COMPARE_SOURCE,
  ASSERT_SOURCE,
  IO_SOURCE,
  LOOP_SOURCE,
  RUNTIME_SOURCE,
  BUILTINS_SOURCE,
  ENTRY_SOURCE,
];

/** Complete in-isolate runtime: an IIFE that installs the globals and evaluates to the control function. */
export const SHIM_SOURCE = `(function () {\n'use strict';\n${FRAGMENTS.join('\n')}\n})()`;

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
    if (warm) await ctl.apply(undefined, ['warm'], { timeout: 5000 });
    prepared = { isolate, context, ctl, onCatastrophe: () => {} };
    return prepared;
  } catch (err) {
    isolate.dispose();
    throw err;
  }
}

/**
 * Keeps a few prepared isolates per memory limit; each is handed out once.
 * Creating an isolate blocks the event loop for ~0.7 ms, so refilling normally waits
 * for a moment with no run in flight; when a burst drains the pool, one isolate is
 * prepared alongside the running programs, and otherwise runs prepare inline.
 */
export class IsolatePool {
  readonly #target: number;
  readonly #maxKeys: number;
  readonly #idle = new Map<number, PreparedIsolate[]>();
  #busy = 0;
  #scheduled = false;
  #eager = false;
  #preparing = false;
  #closed = false;

  readonly #listener: CatastropheListener | undefined;

  constructor(target = 2, maxKeys = 4, listener?: CatastropheListener) {
    this.#target = Math.max(0, target);
    this.#maxKeys = Math.max(1, maxKeys);
    this.#listener = listener;
  }

  /** A prepared isolate for `memoryMb`, from the pool when available; marks a run as in flight until {@link release}. */
  async take(memoryMb: number): Promise<PreparedIsolate> {
    if (this.#closed) throw new Error('isolate pool is closed');
    this.#busy++;
    try {
      const list = this.#want(memoryMb);
      const ready = list.pop();
      // A burst is draining the pool: refill alongside the running programs rather
      // than waiting for an idle moment that may not come soon.
      if (list.length === 0) this.#schedule(true);
      return ready ?? (await prepareIsolate(memoryMb, false, this.#listener));
    } catch (err) {
      this.#busy--;
      throw err;
    }
  }

  /**
   * Ends a run started by {@link take}: its isolate is disposed right after the
   * response is on its way (null for an isolate parked by a catastrophic error).
   */
  release(isolate: ivm.Isolate | null): void {
    this.#busy--;
    // Not deferred to an idle moment: a finished program may still hold a heap of up
    // to its memory limit, which must be returned promptly.
    if (isolate !== null) setTimeout(() => disposeQuietly(isolate), AFTER_REPLY_MS);
    this.#schedule();
  }

  /** Prepares isolates for `memoryMb` in the background, so that the first runs are already fast. */
  warm(memoryMb: number): void {
    this.#want(memoryMb);
    this.#schedule();
  }

  /** Disposes idle isolates and stops refilling. */
  close(): void {
    this.#closed = true;
    for (const list of this.#idle.values()) for (const vm of list) disposeQuietly(vm.isolate);
    this.#idle.clear();
  }

  // The idle list for a memory limit, most recently wanted last (evicting the oldest limit).
  #want(memoryMb: number): PreparedIsolate[] {
    let list = this.#idle.get(memoryMb);
    if (list !== undefined) this.#idle.delete(memoryMb);
    else list = [];
    this.#idle.set(memoryMb, list);
    while (this.#idle.size > this.#maxKeys) {
      const oldest = this.#idle.keys().next().value as number;
      for (const vm of this.#idle.get(oldest) ?? []) disposeQuietly(vm.isolate);
      this.#idle.delete(oldest);
    }
    return list;
  }

  #schedule(eager = false): void {
    if (this.#closed || (this.#busy > 0 && !eager)) return;
    this.#eager ||= eager;
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Not setImmediate: creating an isolate blocks the thread ~1.5-2 ms, and the
    // reply of the run that just ended is still being written; let it go first.
    setTimeout(() => {
      const wasEager = this.#eager;
      this.#scheduled = false;
      this.#eager = false;
      void this.#maintain(wasEager);
    }, AFTER_REPLY_MS);
  }

  // One housekeeping step per turn of the event loop, normally only while nothing
  // runs; an eager step (pool drained by a burst) prepares one isolate regardless.
  async #maintain(eager = false): Promise<void> {
    if (this.#closed || (this.#busy > 0 && !eager) || this.#preparing || this.#target === 0) return;
    let wanted: number | undefined;
    for (const [mb, list] of this.#idle) if (list.length < this.#target) wanted = mb;
    if (wanted === undefined) return;
    this.#preparing = true;
    try {
      const vm = await prepareIsolate(wanted, !eager, this.#listener);
      const list = this.#idle.get(wanted);
      if (this.#closed || list === undefined) disposeQuietly(vm.isolate);
      else list.push(vm);
    } catch {
      // Preparing failed (e.g. out of memory); take() prepares on demand instead.
      return;
    } finally {
      this.#preparing = false;
    }
    this.#schedule();
  }
}

/** Disposes an isolate unless it already is. */
export function disposeQuietly(isolate: ivm.Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // Already disposed concurrently.
  }
}
