// A Web `Worker` for Node, enough for jax-js's wasm worker pool (backend-*.js:
// createWorkerPool / WasmWorkerPool), which runs kernels on several threads only
// when a global `Worker` exists. jax-js builds each worker from a blob URL of
// classic-script source (`self.onmessage`, `postMessage`), sends a worker one
// message at a time and gets exactly one reply per message: `init` (the shared
// memory), then `kernel` (a compiled module and an output range [begin, end)) or
// `routine`. It splits a kernel over its workers only when the kernel is large.
//
// A thread round trip costs ~50-100 µs, far more than most kernels of a decoding
// step, so messages do not all go to threads: the first worker of a pool runs
// the script inline on the calling thread (it gets every kernel jax-js does not
// split, and its share of those it does), and the other workers run a kernel
// chunk on their thread only when it has at least `minThreadElements` outputs.
// The inline script also caches kernel instances, which jax-js's own
// single-thread path re-creates on every dispatch.
import { resolveObjectURL } from 'node:buffer';
import { Worker as NodeWorker } from 'node:worker_threads';

/** Options of {@link installWebWorkerShim}. */
export interface WebWorkerShimOptions {
  /** Workers in jax-js's pool (it reads `navigator.hardwareConcurrency`); the first runs on the calling thread. */
  threads: number;
  /** Smallest kernel chunk (output elements) sent to another thread; smaller ones run inline. @default 32768 */
  minThreadElements?: number;
}

type Listener = (event: { data: unknown }) => void;
interface PoolMessage {
  type?: unknown;
  begin?: unknown;
  end?: unknown;
}

/** The Web Worker surface jax-js uses. */
export interface WebWorkerLike {
  onmessage: Listener | null;
  onerror: ((event: { message: string }) => void) | null;
  postMessage(data: unknown): void;
  terminate(): void;
}

/** A Worker class and how many instances it has made. */
export interface WebWorkerClass {
  new (url: string | URL): WebWorkerLike;
  readonly created: number;
}

const DEFAULT_MIN_THREAD_ELEMENTS = 32_768;

// Runs inside a thread (CommonJS, eval'd): a Web-worker-like global scope, and
// messages queued until the script has been evaluated.
const PRELUDE = `
const { parentPort, workerData } = require('node:worker_threads');
globalThis.self = globalThis;
globalThis.postMessage = (data) => parentPort.postMessage(data);
const early = [];
let ready = false;
parentPort.on('message', (data) => (ready ? self.onmessage({ data }) : early.push(data)));
workerData.blob.text().then((source) => {
  (0, eval)(source);
  ready = true;
  for (const data of early.splice(0)) self.onmessage({ data });
});
`;

/** The worker script evaluated on the calling thread with its own `self` and `postMessage`. */
class InlineWorker {
  readonly #scope: { onmessage: Listener | null } = { onmessage: null };
  readonly #loaded: Promise<void>;
  #reply: (data: unknown) => void = () => {};

  constructor(blob: Blob) {
    this.#loaded = blob.text().then((source) => {
      // jax-js's worker source: it only assigns self.onmessage and calls postMessage.
      new Function('self', 'postMessage', source)(this.#scope, (data: unknown) => this.#reply(data));
    });
  }

  /**
   * Delivers `data` in a later microtask, in posting order (so a pool posting
   * to several workers starts their threads first); `reply` gets the script's
   * one synchronous reply.
   */
  post(data: unknown, reply: (data: unknown) => void): void {
    void this.#loaded.then(() => {
      this.#reply = reply;
      this.#scope.onmessage?.({ data });
    });
  }
}

function chunkSize(msg: PoolMessage): number {
  return typeof msg.begin === 'number' && typeof msg.end === 'number' ? msg.end - msg.begin : 0;
}

/** Builds a Worker class for jax-js's pool: every `threads`-th instance runs inline, the others own a thread. */
export function createWebWorkerClass(options: WebWorkerShimOptions): WebWorkerClass {
  const threads = options.threads;
  const minThreadElements = options.minThreadElements ?? DEFAULT_MIN_THREAD_ELEMENTS;
  let created = 0;

  return class NodeWebWorker implements WebWorkerLike {
    static get created(): number {
      return created;
    }

    onmessage: Listener | null = null;
    onerror: ((event: { message: string }) => void) | null = null;
    readonly #inline: InlineWorker;
    readonly #thread: NodeWorker | null;
    #outstanding = 0;

    /** `url` must be a `blob:` URL created in this thread (URL.createObjectURL). */
    constructor(url: string | URL) {
      const blob = resolveObjectURL(String(url));
      if (blob === undefined) throw new TypeError(`Worker: ${String(url)} is not a live blob URL`);
      this.#inline = new InlineWorker(blob);
      this.#thread = created++ % threads === 0 ? null : new NodeWorker(PRELUDE, { eval: true, workerData: { blob } });
      const thread = this.#thread;
      if (thread === null) return;
      // Referenced only while a reply is due, so an idle pool never keeps the process alive.
      thread.unref();
      thread.on('message', (data: unknown) => {
        if (this.#outstanding > 0 && --this.#outstanding === 0) thread.unref();
        this.onmessage?.({ data });
      });
      thread.on('error', (err: Error) => this.onerror?.({ message: err.message }));
    }

    postMessage(data: unknown): void {
      const msg = (typeof data === 'object' && data !== null ? data : {}) as PoolMessage;
      const thread = this.#thread;
      const toThread = thread !== null && (msg.type === 'init' || (msg.type === 'kernel' && chunkSize(msg) >= minThreadElements));
      // A thread worker's inline copy also needs the memory, for the chunks it keeps; its reply is dropped.
      if (thread !== null && msg.type === 'init') this.#inline.post(data, () => {});
      if (!toThread) {
        this.#inline.post(data, (reply) => this.onmessage?.({ data: reply }));
        return;
      }
      if (this.#outstanding++ === 0) thread.ref();
      thread.postMessage(data);
    }

    terminate(): void {
      void this.#thread?.terminate();
    }
  };
}

/**
 * Installs a {@link createWebWorkerClass} class as the global `Worker` and sets
 * `navigator.hardwareConcurrency` (jax-js's pool size) to `threads`. Must run
 * before `@jax-js/jax` is first imported: jax-js decides at import whether its
 * memory is shared and whether it has a worker pool. Throws if a `Worker` exists.
 */
export function installWebWorkerShim(options: WebWorkerShimOptions): WebWorkerClass {
  if (!Number.isInteger(options.threads) || options.threads < 1) throw new RangeError(`threads must be a positive integer, got ${options.threads}`);
  if (Reflect.has(globalThis, 'Worker')) throw new Error('a global Worker already exists');
  const WorkerClass = createWebWorkerClass(options);
  Object.defineProperty(globalThis.navigator, 'hardwareConcurrency', { value: options.threads, configurable: true });
  Object.defineProperty(globalThis, 'Worker', { value: WorkerClass, configurable: true, writable: true });
  return WorkerClass;
}
