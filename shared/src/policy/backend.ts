// The tensor library behind the policy: jax-js (JAX-style autodiff and jit,
// kernels compiled to WebAssembly at run time, so nothing is downloaded or read
// from disk). See README.md for why it won over TensorFlow.js.
import { defaultDevice, init, lax, nn, numpy, tree } from '@jax-js/jax';
import type { Array as JaxArray } from '@jax-js/jax';

/** A device array. jax-js uses move semantics: passing an array to an op consumes it; use `.ref` to keep it. */
export type Tensor = JaxArray;

/** NumPy-style ops, activations, lax and tree helpers for loss functions (same objects as jax-js exports). */
export { numpy as np, nn, lax, tree };

let ready: Promise<void> | undefined;

/**
 * Starts the WebAssembly device once per process; every entry point that
 * creates tensors awaits it. Kept as a memo because jax-js itself is a
 * process-wide engine: a second init would be a no-op anyway.
 */
export function ensureTensorBackend(): Promise<void> {
  ready ??= (async () => {
    const devices = await init('wasm');
    if (!devices.includes('wasm')) throw new Error('jax-js wasm device is not available');
    defaultDevice('wasm');
  })();
  return ready;
}
