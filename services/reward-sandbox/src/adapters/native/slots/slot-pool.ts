// Execution slots: one host uid (and gid) per run that may execute at once.
// The kernel keeps some budgets per user (inotify instances and watches, pipe
// buffer pages, keyrings, RLIMIT_NPROC and RLIMIT_MSGQUEUE accounting), so two
// sandboxes under one host uid share them and one can starve the other. A run
// holds its slot from before its sandbox starts until every process of it is
// gone, so two runs never use the same uid at the same time.
//
// The executor's queue already bounds runs to the slot count; the pool still
// queues (FIFO) rather than failing, so a runner used without the queue (tests,
// a second caller) stays correct.
//
// There are more slots than cores (the queue lets programs in while they leave
// CPU unused, core/cpu-admission.ts), so per-slot processes are kept warm only
// for the first `warm` slots; the others start theirs when a run first needs
// them, and the pool tells its listeners (the runners) to stop them once such a
// slot has been idle for `idleMs`.

/** One slot: its index and the host uid/gid its sandboxes run as. */
export interface Slot {
  readonly index: number;
  readonly uid: number;
}

/** A slot held by one run; release it once the run's processes are gone. */
export interface SlotLease extends Slot {
  release(): void;
}

/** Options of {@link SlotPool}. */
export interface SlotPoolOptions {
  /** Slots: the service's execution concurrency. */
  size: number;
  /** Host uid (and gid) of slot 0; slot i runs as uidBase + i. */
  uidBase: number;
  /** Slots (the lowest indices) whose per-slot processes are started up front and kept. @default size */
  warm?: number;
  /** How long a slot past the warm ones stays idle before {@link SlotPool.onIdle} listeners hear of it. @default 60000 */
  idleMs?: number;
  /** A one-shot timer (tests replace it); returns a cancel function. @default unref'd setTimeout */
  timer?: (ms: number, fn: () => void) => () => void;
}

/** Hands out slots, each to one run at a time. */
export class SlotPool {
  readonly size: number;
  readonly uidBase: number;
  /** Slots 0 .. warm-1 keep their per-slot processes; the others start them on demand and stop them when idle. */
  readonly warm: number;
  readonly #free: number[];
  readonly #waiting: Array<(index: number) => void> = [];
  readonly #idleMs: number;
  readonly #timer: (ms: number, fn: () => void) => () => void;
  readonly #idleListeners: Array<(slot: Slot) => void> = [];
  /** Pending idle notice per cold slot (cancelled when the slot is taken again). */
  readonly #idleTimers = new Map<number, () => void>();

  constructor({ size, uidBase, warm = size, idleMs = 60_000, timer = unrefTimer }: SlotPoolOptions) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slot count must be a positive integer, got ${size}`);
    this.size = size;
    this.uidBase = uidBase;
    this.warm = Math.max(0, Math.min(size, warm));
    this.#idleMs = idleMs;
    this.#timer = timer;
    // Lowest index first, so a lightly loaded service keeps reusing the same few slots (and their warm zygotes).
    this.#free = Array.from({ length: size }, (_, i) => size - 1 - i);
  }

  /** Every slot, for start-up work (creating per-slot cgroups). */
  all(): Slot[] {
    return Array.from({ length: this.size }, (_, index) => ({ index, uid: this.uidBase + index }));
  }

  /** The warm slots, whose per-slot processes start up front. */
  warmSlots(): Slot[] {
    return this.all().slice(0, this.warm);
  }

  /** Calls `listener` when a slot past the warm ones has been idle `idleMs` (stop its per-slot processes then). */
  onIdle(listener: (slot: Slot) => void): void {
    this.#idleListeners.push(listener);
  }

  /** Slots not held by a run. */
  get idle(): number {
    return this.#free.length;
  }

  /** A free slot, waiting (FIFO) for one if all are held; rejects with the signal's reason on abort. */
  acquire(signal: AbortSignal): Promise<SlotLease> {
    signal.throwIfAborted();
    const free = this.#free.pop();
    if (free !== undefined) return Promise.resolve(this.#lease(free));
    return new Promise((resolve, reject) => {
      const take = (index: number) => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.#lease(index));
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(take);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal.reason);
      };
      this.#waiting.push(take);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #lease(index: number): SlotLease {
    this.#idleTimers.get(index)?.();
    this.#idleTimers.delete(index);
    let held = true;
    return {
      index,
      uid: this.uidBase + index,
      release: () => {
        if (!held) return;
        held = false;
        const next = this.#waiting.shift();
        if (next !== undefined) {
          next(index);
          return;
        }
        // Kept sorted highest first, so pop() hands out the lowest free index (warm slots first).
        const at = this.#free.findIndex((i) => i < index);
        this.#free.splice(at < 0 ? this.#free.length : at, 0, index);
        if (index >= this.warm && this.#idleListeners.length > 0) {
          this.#idleTimers.set(
            index,
            this.#timer(this.#idleMs, () => {
              this.#idleTimers.delete(index);
              for (const l of this.#idleListeners) l({ index, uid: this.uidBase + index });
            }),
          );
        }
      },
    };
  }
}

function unrefTimer(ms: number, fn: () => void): () => void {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
}

/**
 * Default host uid of slot 0. Outside every range a host conventionally hands
 * out: accounts (< 60000), systemd's dynamic users and containers
 * (61184-65519, 524288-1879048191, the foreign range at 2147352576), useradd's
 * subordinate ids (100000-600100000 in blocks of 65536, so 200000 would be a
 * second user's subuid block) and the signed-overflow zone above 2^31.
 */
export const DEFAULT_UID_BASE = 2_000_000_000;
