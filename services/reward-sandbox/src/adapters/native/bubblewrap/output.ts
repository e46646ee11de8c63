// Bounded capture of a child's output stream. Past the cap we keep reading and
// discard, so the program never blocks on a full pipe and a flood of output
// costs the service CPU only, not memory.

/** Collects up to `cap` bytes of a stream, counting (and dropping) the rest. */
export class CappedBuffer {
  readonly cap: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  #seen = 0;

  constructor(cap: number) {
    this.cap = Math.max(0, cap);
  }

  /** Appends a chunk, keeping only what fits under the cap. */
  push(chunk: Buffer): void {
    this.#seen += chunk.length;
    const room = this.cap - this.#kept;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(kept);
    this.#kept += kept.length;
  }

  /** True once more bytes arrived than the cap allows. */
  get truncated(): boolean {
    return this.#seen > this.cap;
  }

  /** Total bytes seen, kept or not. */
  get seen(): number {
    return this.#seen;
  }

  /** The kept bytes as text: lossy UTF-8, so invalid sequences become U+FFFD. */
  text(): string {
    return Buffer.concat(this.#chunks, this.#kept).toString('utf8');
  }
}

/** Streams the lines of a channel to `onLine`; bytes past `cap` in total are dropped. */
export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #total = 0;
  readonly cap: number;
  readonly onLine: (line: Buffer) => void;

  constructor(cap: number, onLine: (line: Buffer) => void) {
    this.cap = cap;
    this.onLine = onLine;
  }

  /** True once the channel exceeded its cap (later lines were dropped). */
  get overflowed(): boolean {
    return this.#total > this.cap;
  }

  /** Feeds a chunk; complete lines (without the newline) go to `onLine`. */
  push(chunk: Buffer): void {
    const room = this.cap - this.#total;
    this.#total += chunk.length;
    if (room <= 0) return;
    if (chunk.length > room) chunk = chunk.subarray(0, room);
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.#pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.#pending, this.#pendingBytes + nl - start);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.onLine(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start));
      this.#pendingBytes += chunk.length - start;
    }
  }
}
