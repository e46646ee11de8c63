// The way a run's output leaves its isolate: a SharedArrayBuffer the isolate's
// runtime (runtime/io.js) writes stdout and stderr into, as UTF-16 code units,
// and that this worker reads without entering the isolate. So what a program
// wrote is readable whatever became of its isolate: terminated at the time
// limit, disposed at its heap limit, parked by a fatal V8 OOM, or stuck in native
// code past the watchdog. The worker drains it into the run's OutputSink (which
// streams every kept chunk to the service) when the runtime asks (a buffer is
// full, or a string is too long for it), every POLL_MS while the program runs
// (a worker killed mid-run has sent what was written up to then), and once the
// run is over. Like the pipe of a real node process, nothing written is lost.
//
// Layout: two Int32 lengths (committed code units of stdout, stderr), then the
// stdout buffer, then the stderr buffer, `capacity` code units each. The runtime
// writes the units, then stores the new length (Atomics.store); the worker
// reads the length (Atomics.load), then the units below it. Only the worker
// rewinds a buffer, and only inside the runtime's synchronous write callback,
// while the isolate waits for it. The isolate runs hostile code, so the lengths
// are clamped before use: a program that got hold of the buffer can garble its
// own output, nothing else.

import type { OutputSink } from '../output.ts';

const HEADER_BYTES = 8;
/** Code units per stream: the runtime hands its buffer over at this size (as it flushed at 64 KiB before). */
const CHANNEL_CAPACITY_UNITS = 32 * 1024;
/** How often the worker forwards output while a program runs. */
export const POLL_MS = 25;

/** stdout and stderr of one run, shared with its isolate. */
export class OutputChannel {
  readonly buffer: SharedArrayBuffer;
  readonly #sink: OutputSink;
  readonly #lengths: Int32Array;
  readonly #capacity: number;
  readonly #read = [0, 0];
  // A high surrogate that ended a drained chunk, held until its pair arrives.
  readonly #carry = ['', ''];

  constructor(sink: OutputSink, capacityUnits = CHANNEL_CAPACITY_UNITS) {
    this.#sink = sink;
    this.#capacity = capacityUnits;
    this.buffer = new SharedArrayBuffer(HEADER_BYTES + 4 * capacityUnits);
    this.#lengths = new Int32Array(this.buffer, 0, 2);
  }

  /**
   * The runtime's write callback (it waits for the answer): forwards what is
   * buffered, rewinds the buffers, then forwards `text` (a string too long for
   * a buffer; '' when the runtime only hands its buffers over). Answers with
   * the streams that reached the output cap: bit 0 stdout, bit 1 stderr.
   */
  write(fd: unknown, text: unknown): number {
    this.#drain(true, false);
    if ((fd === 1 || fd === 2) && typeof text === 'string' && text !== '') {
      this.#sink.write(fd, this.#carry[fd - 1] + text);
      this.#carry[fd - 1] = '';
    }
    return (this.#sink.truncated(1) ? 1 : 0) | (this.#sink.truncated(2) ? 2 : 0);
  }

  /** Forwards what the runtime has written since the last call (the program may still be running). */
  poll(): void {
    this.#drain(false, false);
  }

  /** Forwards everything left; the run is over (its isolate may still exist, but runs no more program code). */
  close(): void {
    this.#drain(false, true);
  }

  #drain(rewind: boolean, final: boolean): void {
    for (const fd of [1, 2] as const) {
      const i = fd - 1;
      const committed = Atomics.load(this.#lengths, i);
      const end = committed >= 0 && committed <= this.#capacity ? committed : this.#capacity;
      const start = Math.min(this.#read[i] as number, end);
      let text = this.#carry[i] as string;
      if (end > start) text += Buffer.from(this.buffer, HEADER_BYTES + 2 * (i * this.#capacity + start), 2 * (end - start)).toString('utf16le');
      this.#read[i] = end;
      if (rewind) {
        this.#read[i] = 0;
        Atomics.store(this.#lengths, i, 0);
      }
      const last = text.charCodeAt(text.length - 1);
      if (!final && last >= 0xd800 && last <= 0xdbff) {
        this.#carry[i] = text.slice(-1);
        text = text.slice(0, -1);
      } else {
        this.#carry[i] = '';
      }
      if (text !== '') this.#sink.write(fd, text);
    }
  }
}
