// The tensor library behind the policy: jax-js (JAX-style autodiff and jit,
// kernels compiled to WebAssembly at run time, so nothing is downloaded or read
// from disk). See README.md for why it won over TensorFlow.js.
//
// jax-js is loaded by ensureTensorBackend, not imported here: it decides when
// first imported whether its memory is shared and whether it has a worker pool
// (a global `Worker` must exist by then), so turning on threads has to happen
// before it loads. Every entry point that creates tensors awaits this.
import type * as Jax from '@jax-js/jax';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { installWebWorkerShim } from './web-worker-shim.ts';

/** A device array. jax-js uses move semantics: passing an array to an op consumes it; use `.ref` to keep it. */
export type Tensor = Jax.Array;

/** NumPy-style ops (jax-js `numpy`), bound once {@link ensureTensorBackend} has resolved. */
export let np: typeof Jax.numpy;
/** Activations (jax-js `nn`), bound once {@link ensureTensorBackend} has resolved. */
export let nn: typeof Jax.nn;
/** jax-js `lax`, bound once {@link ensureTensorBackend} has resolved. */
export let lax: typeof Jax.lax;
/** Tree helpers (jax-js `tree`), bound once {@link ensureTensorBackend} has resolved. */
export let tree: typeof Jax.tree;
/** jax-js `jit`, bound once {@link ensureTensorBackend} has resolved. */
export let jit: typeof Jax.jit;
/** jax-js `valueAndGrad`, bound once {@link ensureTensorBackend} has resolved. */
export let valueAndGrad: typeof Jax.valueAndGrad;

/** Options of {@link ensureTensorBackend}; only the first call in a process can set them. */
export interface TensorBackendOptions {
  /**
   * Threads that run kernels, the calling thread included (jax-js's wasm worker
   * pool over node:worker_threads, see web-worker-shim.ts). 0 keeps jax-js's own
   * single-threaded path. Pays off only for large kernels on an otherwise idle
   * core (README "Threads"). @default 0
   */
  threads?: number;
  /** Smallest kernel chunk (output elements) run on another thread. @default 32768 */
  minThreadElements?: number;
}

let ready: Promise<void> | undefined;
let startedThreads = 0;

async function start(threads: number, minThreadElements: number | undefined): Promise<void> {
  const workers = threads > 0 ? installWebWorkerShim({ threads, ...(minThreadElements !== undefined && { minThreadElements }) }) : null;
  const jax = await import('@jax-js/jax');
  const devices = await jax.init('wasm');
  if (!devices.includes('wasm')) throw new AppError(ErrorCode.Internal, 'jax-js wasm device is not available');
  jax.defaultDevice('wasm');
  ({ numpy: np, nn, lax, tree, jit, valueAndGrad } = jax);
  if (workers !== null) {
    // jax-js creates its workers on the first kernel. If it was imported before the shim, it has
    // no pool, and kernels compiled now expect shared memory it lacks (a LinkError).
    const tooLate = 'tensor threads requested, but @jax-js/jax was imported before ensureTensorBackend installed its Worker shim';
    try {
      await np.ones([4096]).add(1).data();
    } catch (cause) {
      throw new AppError(ErrorCode.Internal, tooLate, { cause });
    }
    if (workers.created === 0) throw new AppError(ErrorCode.Internal, tooLate);
  }
}

function startOnce(options: TensorBackendOptions = {}): Promise<void> {
  const threads = options.threads;
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0)) {
    return Promise.reject(new AppError(ErrorCode.BadRequest, `threads must be a non-negative integer, got ${threads}`));
  }
  if (ready !== undefined) {
    if (threads !== undefined && threads !== startedThreads) {
      return Promise.reject(new AppError(ErrorCode.Internal, `tensor backend already started with ${startedThreads} threads, cannot switch to ${threads}`));
    }
    return ready;
  }
  startedThreads = threads ?? 0;
  ready = start(startedThreads, options.minThreadElements);
  return ready;
}

/**
 * Loads and starts jax-js's WebAssembly device once per process. A later call
 * that names a different `threads` than the first one is an error (jax-js is a
 * process-wide engine); calls without options accept whatever was started.
 */
// Bound so that its source text shows no parameter: tests hand it straight to
// vitest's beforeAll, which rejects a hook whose first parameter is not a
// fixtures pattern (the suite object it passes has no `threads`).
export const ensureTensorBackend: (options?: TensorBackendOptions) => Promise<void> = startOnce.bind(undefined);
