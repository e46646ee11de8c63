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
}

/** Hands out slots, each to one run at a time. */
export class SlotPool {
  readonly size: number;
  readonly uidBase: number;
  readonly #free: number[];
  readonly #waiting: Array<(index: number) => void> = [];

  constructor({ size, uidBase }: SlotPoolOptions) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slot count must be a positive integer, got ${size}`);
    this.size = size;
    this.uidBase = uidBase;
    // Lowest index first, so a lightly loaded service keeps reusing the same few slots (and their warm zygotes).
    this.#free = Array.from({ length: size }, (_, i) => size - 1 - i);
  }

  /** Every slot, for start-up work (creating per-slot cgroups, warming zygotes). */
  all(): Slot[] {
    return Array.from({ length: this.size }, (_, index) => ({ index, uid: this.uidBase + index }));
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
    let held = true;
    return {
      index,
      uid: this.uidBase + index,
      release: () => {
        if (!held) return;
        held = false;
        const next = this.#waiting.shift();
        if (next !== undefined) next(index);
        else this.#free.push(index);
      },
    };
  }
}

/**
 * Default host uid of slot 0. Outside every range a host conventionally hands
 * out: accounts (< 60000), systemd's dynamic users and containers
 * (61184-65519, 524288-1879048191, the foreign range at 2147352576), useradd's
 * subordinate ids (100000-600100000 in blocks of 65536, so 200000 would be a
 * second user's subuid block) and the signed-overflow zone above 2^31.
 */
export const DEFAULT_UID_BASE = 2_000_000_000;
