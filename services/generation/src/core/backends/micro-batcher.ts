/** Options of {@link MicroBatcher}. */
export interface MicroBatcherOptions<T, R> {
  /** Most items per batch. */
  maxBatch: number;
  /** Batches running at once. @default 1 */
  concurrency?: number;
  /** Cost of one item (e.g. its tokens); a batch stays within `maxBatchCost` unless one item alone exceeds it. @default 1 */
  cost?: (item: T) => number;
  /** @default Infinity */
  maxBatchCost?: number;
  /** Runs one batch of items that share `key`; returns one result per item, in order. */
  run(key: string, items: T[]): Promise<R[]>;
}

interface Pending<T, R> {
  item: T;
  resolve(r: R): void;
  reject(e: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/**
 * Groups concurrent requests into batches: whatever arrives while a batch runs
 * (or in the same event-loop turn) forms the next one, up to `maxBatch` items of
 * one key (equal sampling parameters) within `maxBatchCost`. Keys take turns so none starves.
 */
export class MicroBatcher<T, R> {
  readonly #maxBatch: number;
  readonly #concurrency: number;
  readonly #run: (key: string, items: T[]) => Promise<R[]>;
  readonly #cost: (item: T) => number;
  readonly #maxCost: number;
  readonly #queues = new Map<string, Array<Pending<T, R>>>();
  #running = 0;
  #scheduled = false;

  constructor(options: MicroBatcherOptions<T, R>) {
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#run = options.run;
    this.#cost = options.cost ?? (() => 1);
    this.#maxCost = options.maxBatchCost ?? Number.POSITIVE_INFINITY;
  }

  /** Items waiting for a batch. */
  get queued(): number {
    let n = 0;
    for (const q of this.#queues.values()) n += q.length;
    return n;
  }

  /** Queues `item` under `key`; resolves with its result. Aborting `signal` withdraws it while it still waits. */
  submit(key: string, item: T, signal?: AbortSignal): Promise<R> {
    signal?.throwIfAborted();
    return new Promise<R>((resolve, reject) => {
      const pending: Pending<T, R> = {
        item,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const q = this.#queues.get(key);
          const i = q?.indexOf(pending) ?? -1;
          if (q !== undefined && i >= 0) {
            q.splice(i, 1);
            if (q.length === 0) this.#queues.delete(key);
            reject(signal?.reason);
          }
        },
      };
      signal?.addEventListener('abort', pending.onAbort, { once: true });
      const q = this.#queues.get(key);
      if (q === undefined) this.#queues.set(key, [pending]);
      else q.push(pending);
      this.#schedule();
    });
  }

  // Deferred to the next turn so requests submitted together share a batch.
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#running < this.#concurrency) {
      const next = this.#queues.entries().next();
      if (next.done === true) return;
      const [key, queue] = next.value;
      const batch = queue.splice(0, this.#fitting(queue));
      // Re-inserting moves the key to the back: keys take turns.
      this.#queues.delete(key);
      if (queue.length > 0) this.#queues.set(key, queue);
      for (const p of batch) p.signal?.removeEventListener('abort', p.onAbort);
      this.#running++;
      void this.#runBatch(key, batch);
    }
  }

  /** How many items from the head of `queue` fit one batch (at least one). */
  #fitting(queue: Array<Pending<T, R>>): number {
    let total = 0;
    let n = 0;
    for (const p of queue) {
      if (n >= this.#maxBatch) break;
      total += this.#cost(p.item);
      if (n > 0 && total > this.#maxCost) break;
      n++;
    }
    return n;
  }

  async #runBatch(key: string, batch: Array<Pending<T, R>>): Promise<void> {
    try {
      const results = await this.#run(key, batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error(`batch of ${batch.length} returned ${results.length} results`);
      batch.forEach((p, i) => p.resolve(results[i] as R));
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.#running--;
      this.#pump();
    }
  }
}
