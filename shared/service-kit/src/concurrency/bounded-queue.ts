import { AdmissionQueue } from './admission-queue.ts';

/** Options of a {@link BoundedQueue}. */
export interface BoundedQueueOptions {
  /** Runs executing at once (for CPU-bound work, about one per core). */
  concurrency: number;
  /** Runs allowed to wait; past this `run` refuses at once with `busy`. @default Infinity */
  maxQueued?: number;
  /** What runs here, for the `busy` message ("sandbox busy: 4 running and 64 queued"). @default 'queue' */
  name?: string;
}

/**
 * An {@link AdmissionQueue} with a fixed limit: at most `concurrency` run, up
 * to `maxQueued` wait, the rest are refused at once (load shedding, so a caller
 * can back off instead of piling up). Aborting a caller's signal withdraws a
 * waiting run; a started run keeps its slot until its function settles (the
 * work, a sandbox being killed, still runs). Time spent waiting is the queue's:
 * a run's own deadline starts when its function is called.
 */
export class BoundedQueue extends AdmissionQueue {
  constructor(options: BoundedQueueOptions) {
    const { concurrency, maxQueued, name } = options;
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    super({ admission: { limit: () => concurrency, note: () => {}, adaptive: false, sampleMs: 0 }, maxQueued, name });
  }
}
