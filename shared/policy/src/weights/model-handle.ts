// Hot swapping without pulling weights from under running requests: callers
// lease the current model for the duration of a request; swap() installs a new
// one, and a retired model is disposed once its last lease is released.
import { AppError, ErrorCode } from '@rl/service-kit/core';

/** A model borrowed for one request. */
export interface Lease<M> extends Disposable {
  readonly model: M;
  /** Returns the model; idempotent. */
  release(): void;
}

/** Holds the current model and counts leases per model. */
export class ModelHandle<M extends { dispose(): void }> {
  #current: M | null;
  readonly #leases = new Map<M, number>();
  readonly #retired = new Set<M>();

  constructor(initial: M) {
    this.#current = initial;
  }

  /** The model new requests get; throws after close(). */
  get current(): M {
    if (this.#current === null) throw new AppError(ErrorCode.Unavailable, 'model handle is closed');
    return this.#current;
  }

  /** Leases the current model (use with `using` or call release()). */
  acquire(): Lease<M> {
    const model = this.current;
    this.#leases.set(model, (this.#leases.get(model) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.#leases.get(model) ?? 1) - 1;
      if (left > 0) this.#leases.set(model, left);
      else {
        this.#leases.delete(model);
        if (this.#retired.delete(model)) model.dispose();
      }
    };
    return { model, release, [Symbol.dispose]: release };
  }

  /** Leases currently held on `model` (default: the current one). */
  inFlight(model: M | null = this.#current): number {
    return model === null ? 0 : (this.#leases.get(model) ?? 0);
  }

  /** Installs `next`; the previous model is disposed now if idle, else when its last lease ends. */
  swap(next: M): void {
    const old = this.#current;
    this.#current = next;
    if (old !== null && old !== next) this.#retire(old);
  }

  /** Stops handing out the model; it is disposed when idle. */
  close(): void {
    const old = this.#current;
    this.#current = null;
    if (old !== null) this.#retire(old);
  }

  #retire(model: M): void {
    if (this.inFlight(model) === 0) model.dispose();
    else this.#retired.add(model);
  }
}
