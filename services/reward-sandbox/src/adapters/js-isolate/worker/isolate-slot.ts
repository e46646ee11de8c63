// The worker's one prepared isolate. A worker serves a single memory limit and one
// run at a time, so it keeps exactly one isolate ready and prepares the next only
// once the previous one is gone: two isolates never coexist, which keeps the
// worker's address space at the baseline the service measured (its limit is that
// baseline plus the run's memory limit plus a small margin, see address-space.ts).
//
// Each isolate reserves ~0.5 GiB of address space whatever its heap limit, and
// isolated-vm sometimes releases a disposed isolate a moment later, on its own
// thread; so after disposing, the slot waits until the address space has come
// back down before it prepares the next isolate.

import type ivm from 'isolated-vm';
import { disposeQuietly, prepareIsolate, warmIsolate, type PreparedIsolate } from '../prepared-isolate.ts';
import { readVmSizeBytes } from './address-space.ts';

/** Delay before disposing and preparing after a run, so the run's answer is written first. */
const AFTER_REPLY_MS = 1;
/** How often, and how long at most, to look for a disposed isolate's address space to be released. */
const RELEASE_POLL_MS = 1;
const RELEASE_TIMEOUT_MS = 2000;
/**
 * Warming a prepared isolate costs about what it saves the next run, so it is
 * only worth it when the worker is idle: under load the next run comes first.
 */
const WARM_WHEN_IDLE_MS = 5;

/** Holds the next isolate for a fixed memory limit. */
export class IsolateSlot {
  // The heap limit of the isolate prepared next: that of the worker's last run.
  #memoryMb: number;
  #next: Promise<PreparedIsolate> | undefined;
  #warmTimer: NodeJS.Timeout | undefined;
  #warming: Promise<void> | undefined;
  /** Address space with no isolate, and what one isolate adds (measured by the first {@link fill}). */
  #emptyBytes = 0;
  #isolateBytes = 0;

  constructor(memoryMb: number) {
    this.#memoryMb = memoryMb;
  }

  /** Prepares (and warms) the first isolate, measuring what it costs in address space. */
  async fill(): Promise<void> {
    this.#emptyBytes = readVmSizeBytes();
    this.#next = prepareIsolate(this.#memoryMb, true);
    await this.#next;
    this.#isolateBytes = readVmSizeBytes() - this.#emptyBytes;
  }

  /** The prepared isolate, or a new one when none is ready or the run wants another heap limit (prepared for from now on). */
  async take(memoryMb: number): Promise<PreparedIsolate> {
    clearTimeout(this.#warmTimer);
    if (memoryMb !== this.#memoryMb) {
      this.#memoryMb = memoryMb;
      const stale = this.#next;
      this.#next = undefined;
      await this.#warming;
      this.#warming = undefined;
      // One isolate at a time: the one prepared for the old limit goes before the new one is made.
      const vm = await stale?.catch(() => undefined);
      if (vm !== undefined) {
        disposeQuietly(vm.isolate);
        await this.#released();
      }
      return prepareIsolate(memoryMb, false);
    }
    const next = this.#next;
    this.#next = undefined;
    await this.#warming;
    this.#warming = undefined;
    // A failed preparation is not kept: the run prepares once more on demand.
    return (await next?.catch(() => undefined)) ?? prepareIsolate(memoryMb, false);
  }

  /**
   * Disposes a finished run's isolate (null: parked, leave it), waits for its
   * address space to be released, then prepares the next one. Resolves with
   * false when the release was not seen in time (the service then measures the
   * worker and replaces it if it has grown).
   */
  recycle(isolate: ivm.Isolate | null): Promise<boolean> {
    const released = new Promise<boolean>((resolve) => {
      setTimeout(() => {
        if (isolate !== null) disposeQuietly(isolate);
        void this.#released().then(resolve);
      }, AFTER_REPLY_MS);
    });
    const next = released.then(() => prepareIsolate(this.#memoryMb, false));
    this.#next = next;
    return next.then(
      (vm) => {
        this.#warmWhenIdle(next, vm);
        return released;
      },
      () => false,
    );
  }

  // Warms `vm` unless a run has taken it by then (warming a running program's isolate would write to its output).
  #warmWhenIdle(next: Promise<PreparedIsolate>, vm: PreparedIsolate): void {
    if (this.#next !== next) return;
    this.#warmTimer = setTimeout(() => {
      if (this.#next === next) this.#warming = warmIsolate(vm).catch(() => undefined);
    }, WARM_WHEN_IDLE_MS);
  }

  async #released(): Promise<boolean> {
    const enough = this.#emptyBytes + this.#isolateBytes / 2;
    const deadline = performance.now() + RELEASE_TIMEOUT_MS;
    while (readVmSizeBytes() > enough) {
      if (performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, RELEASE_POLL_MS));
    }
    return true;
  }
}
