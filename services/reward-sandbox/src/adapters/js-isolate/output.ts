// Collector for what a program writes to stdout/stderr, with a per-stream byte cap:
// beyond it output is discarded and the stream is marked truncated (the isolate is
// told to stop sending by the `false` return value). The worker process keeps one
// and forwards every kept chunk to the service as it arrives (`onKept`); the
// service rebuilds the same text in its own sink, so output written before a
// worker is killed is not lost with it.

/** Called with each piece of text a sink kept, and once when a stream hits the cap. */
export type KeptListener = (fd: 1 | 2, text: string, truncated: boolean) => void;

/** Accumulates stdout (fd 1) and stderr (fd 2) up to `capBytes` each. */
export class OutputSink {
  readonly #cap: number;
  readonly #chunks = [[] as string[], [] as string[]] as const;
  readonly #bytes = [0, 0];
  readonly #truncated = [false, false];
  readonly #onKept: KeptListener | undefined;

  constructor(capBytes: number, onKept?: KeptListener) {
    this.#cap = Math.max(0, Math.floor(capBytes));
    this.#onKept = onKept;
  }

  /** Appends text to fd 1 or 2; returns false once the stream is full. */
  write(fd: 1 | 2, text: string): boolean {
    const i = (fd - 1) as 0 | 1;
    const chunks = this.#chunks[i];
    if (this.#truncated[i]) return false;
    if (text.length === 0) return true;
    const size = Buffer.byteLength(text);
    const used = this.#bytes[i] as number;
    if (used + size <= this.#cap) {
      chunks.push(text);
      this.#bytes[i] = used + size;
      this.#onKept?.(fd, text, false);
      return true;
    }
    const room = this.#cap - used;
    const kept = room > 0 ? cutUtf8(text, room) : '';
    if (kept !== '') chunks.push(kept);
    this.#bytes[i] = this.#cap;
    this.#truncated[i] = true;
    this.#onKept?.(fd, kept, true);
    return false;
  }

  /** Marks fd 1 or 2 as cut at the cap (the sink that cut it was elsewhere: the worker). */
  markTruncated(fd: 1 | 2): void {
    this.#truncated[fd - 1] = true;
  }

  /** Everything kept for fd 1 or 2, with lone surrogates replaced as Node's UTF-8 encoding would. */
  text(fd: 1 | 2): string {
    return this.#chunks[(fd - 1) as 0 | 1].join('').toWellFormed();
  }

  /** Whether fd 1 or 2 hit the cap. */
  truncated(fd: 1 | 2): boolean {
    return this.#truncated[fd - 1] as boolean;
  }

  /** Human-readable notes for truncated streams. */
  notes(): string[] {
    const notes: string[] = [];
    if (this.#truncated[0]) notes.push(`stdout truncated at ${this.#cap} bytes`);
    if (this.#truncated[1]) notes.push(`stderr truncated at ${this.#cap} bytes`);
    return notes;
  }
}

// The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes` (no split characters).
function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8').subarray(0, maxBytes);
  return new TextDecoder('utf-8').decode(bytes, { stream: true });
}
