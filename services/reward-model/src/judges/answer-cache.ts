// Answers of identical judge requests (same judge, rendered messages and
// sampling), kept in memory: a repeated item costs no request, and identical
// requests in flight at once share one.

/** What {@link AnswerCache.answer} gives back. */
export interface CachedAnswer {
  text: string;
  /** Answered from memory or by another caller's request in flight. */
  shared: boolean;
}

/** An LRU of answers plus the requests in flight, by request key. */
export class AnswerCache {
  readonly #maxEntries: number;
  readonly #answers = new Map<string, string>();
  readonly #inFlight = new Map<string, Promise<string>>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /**
   * The answer for `key`: from memory, from the request in flight for it, or
   * from `load`. Every caller of one request gets its outcome, error included.
   * Nothing is kept until {@link keep} says the answer was usable. A caller
   * sharing another's request stops waiting when its own `signal` aborts.
   */
  async answer(key: string, load: () => Promise<string>, signal: AbortSignal): Promise<CachedAnswer> {
    const known = this.#answers.get(key);
    if (known !== undefined) {
      // Re-insert: a Map iterates in insertion order, so the first key is the least recently used.
      this.#answers.delete(key);
      this.#answers.set(key, known);
      return { text: known, shared: true };
    }
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return { text: await untilAborted(pending, signal), shared: true };
    const mine = load();
    this.#inFlight.set(key, mine);
    try {
      return { text: await mine, shared: false };
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** Keeps a usable answer (an unparseable one is asked again next time). */
  keep(key: string, text: string): void {
    this.#answers.delete(key);
    this.#answers.set(key, text);
    if (this.#answers.size > this.#maxEntries) {
      const oldest = this.#answers.keys().next();
      if (oldest.done !== true) this.#answers.delete(oldest.value);
    }
  }
}

/** `promise`, or a rejection with the signal's reason once it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
