import { AppError, ErrorCode } from '@rl/service-kit/core';

/** A policy version as an inference server serves it: the model name a request asks for. */
export interface ServedVersion {
  version: string;
  /** `model` of the requests that sample from this version (the base model, or a LoRA adapter's name). */
  model: string;
}

/** One trajectory's hold on a version: the server keeps serving it until `release()`. */
export interface VersionLease extends ServedVersion {
  release(): void;
}

/** Options of {@link VersionGate}. */
export interface VersionGateOptions {
  /**
   * The server serves one version at a time (full weights replaced in place): a sync starts only once no
   * trajectory holds the old version, so none of them samples from two policies.
   */
  exclusive: boolean;
  /** A superseded version no trajectory holds any more (unload its adapter, delete its files). */
  onRetired(served: ServedVersion): void;
}

interface Held {
  served: ServedVersion;
  leases: number;
}

/**
 * Which policy version an inference server serves, and who samples from it.
 * While a sync runs, new trajectories wait for it; after a failed sync they
 * fail with its error instead of sampling from the stale policy, until a later
 * version syncs. Every trajectory samples from the version it leased.
 */
export class VersionGate {
  readonly #o: VersionGateOptions;
  #current: Held | undefined;
  /** Superseded versions still held by trajectories (only when not exclusive). */
  readonly #draining = new Set<Held>();
  #syncing: string | undefined;
  #failure: { version: string; error: AppError } | undefined;
  #changed = Promise.withResolvers<void>();

  constructor(options: VersionGateOptions) {
    this.#o = options;
  }

  /** The version new trajectories get once no sync is running. */
  current(): ServedVersion | undefined {
    return this.#current?.served;
  }

  #notify(): void {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }

  /** Leases the served version for one trajectory; waits while a sync runs. */
  async lease(): Promise<VersionLease> {
    while (this.#syncing !== undefined) await this.#changed.promise;
    if (this.#failure !== undefined) throw this.#failure.error;
    const held = this.#current;
    if (held === undefined) {
      throw new AppError(ErrorCode.Unavailable, 'no policy version has reached the inference server yet', { retryable: true });
    }
    held.leases += 1;
    let released = false;
    return {
      ...held.served,
      release: () => {
        if (released) return;
        released = true;
        held.leases -= 1;
        if (held.leases === 0 && this.#draining.delete(held)) this.#o.onRetired(held.served);
        this.#notify();
      },
    };
  }

  /** Starts syncing `version`: new leases wait from now on; when exclusive, resolves once the old version is free. */
  async beginSync(version: string): Promise<void> {
    if (this.#syncing !== undefined) throw new AppError(ErrorCode.Conflict, `policy version ${this.#syncing} is still syncing`);
    this.#syncing = version;
    this.#notify();
    while (this.#o.exclusive && (this.#current?.leases ?? 0) > 0) await this.#changed.promise;
  }

  /** The server now serves `served`; the previous version retires once no trajectory holds it. */
  commit(served: ServedVersion): void {
    const old = this.#current;
    this.#current = { served, leases: 0 };
    this.#syncing = undefined;
    this.#failure = undefined;
    if (old !== undefined) {
      if (old.leases === 0) this.#o.onRetired(old.served);
      else this.#draining.add(old);
    }
    this.#notify();
  }

  /** The sync of `version` failed: trajectories fail with `error` until a later version commits. */
  fail(version: string, error: AppError): void {
    this.#syncing = undefined;
    this.#failure = { version, error };
    this.#notify();
  }

  /**
   * Resolves once `version` is served; rejects with the sync's error when it
   * failed, or `unavailable` after `timeoutMs` or when `signal` aborts.
   */
  async waitFor(version: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const stopped = new Promise<never>((_, reject) => {
      const onAbort = () =>
        reject(
          new AppError(
            ErrorCode.Unavailable,
            `policy version ${version} ${signal.aborted ? 'wait was cancelled' : `did not reach the inference server within ${timeoutMs} ms`} (serving ${this.#current?.served.version ?? 'none'})`,
            { retryable: true },
          ),
        );
      if (deadline.aborted) onAbort();
      else deadline.addEventListener('abort', onAbort, { once: true });
    });
    stopped.catch(() => undefined);
    for (;;) {
      if (this.#failure?.version === version) throw this.#failure.error;
      if (this.#current?.served.version === version) return;
      await Promise.race([this.#changed.promise, stopped]);
    }
  }
}
