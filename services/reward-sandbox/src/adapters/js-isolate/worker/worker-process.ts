// One JavaScript worker process as the service sees it: forked from main.ts,
// limited (address-space rlimit) before it gets any program, one run at a time,
// and killed with SIGKILL whenever the service no longer trusts it. Everything
// it says is parsed with the protocol schemas; anything else gets it killed.

import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { addressSpaceLimitBytes, applyAddressSpaceLimit, readVmSizeBytes } from './address-space.ts';
import { JsWorkerError, JsWorkerErrorCode } from './errors.ts';
import { WorkerMessage, type OutputMessage, type ResultMessage, type RunRequest } from './protocol.ts';

const ENTRY = new URL('./main.ts', import.meta.url);
const STDERR_TAIL_CHARS = 4096;
// A killed process's IPC pipe normally closes at once; this bounds waiting for it.
const CLOSE_TIMEOUT_MS = 2000;
// Passed through so that Date and Intl inside isolates behave as in the service.
const ENV_PASSTHROUGH = /^(TZ|LANG|LANGUAGE|LC_[A-Z_]+)$/;

/** How to start a worker. */
export interface WorkerLaunch {
  memoryMb: number;
  /** Node binary (the service's own). */
  execPath: string;
  /** From fork to the address-space limit applied. */
  startTimeoutMs: number;
  /** Headroom over baseline + memoryMb in the address-space limit. */
  asMarginMb: number;
  prlimitPath: string;
}

/** How a worker process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the service killed it; null when it died on its own. */
  killedFor: string | null;
  stderrTail: string;
}

/** What the run in progress hears from its worker. */
export interface RunListener {
  output(message: OutputMessage): void;
  result(message: ResultMessage): void;
  failed(message: string): void;
  /** The worker is gone (after every message it sent was delivered). */
  gone(exit: WorkerExit): void;
}

/** The pool's view of a worker's life. */
export interface WorkerHooks {
  /** A run finished and the worker prepared its next isolate. */
  idle(worker: WorkerProcess): void;
  exited(worker: WorkerProcess, exit: WorkerExit): void;
}

/** A forked worker; see the file comment. */
export class WorkerProcess {
  readonly memoryMb: number;
  readonly pid: number;
  /** Resolves once the worker is ready and limited; rejects with a {@link JsWorkerError}. */
  readonly ready: Promise<void>;
  /** Resolves when the process is gone and its pipes are drained. */
  readonly exited: Promise<WorkerExit>;
  readonly #child: ChildProcess;
  readonly #hooks: WorkerHooks;
  #listener: { id: number; on: RunListener } | null = null;
  #killedFor: string | null = null;
  #exit: WorkerExit | null = null;
  #stderr = '';
  #baselineBytes = 0;
  #limitBytes = 0;
  #onReady: () => void = () => {};

  constructor(launch: WorkerLaunch, hooks: WorkerHooks) {
    this.memoryMb = launch.memoryMb;
    this.#hooks = hooks;
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => ENV_PASSTHROUGH.test(k)));
    this.#child = fork(ENTRY, [String(launch.memoryMb)], {
      execPath: launch.execPath,
      // Without the trap handler V8 reserves a WebAssembly memory's size, not 8 GiB
      // of guard region, so the address space tracks what programs can really use.
      execArgv: ['--disable-wasm-trap-handler'],
      // Each thread's malloc arena reserves 64 MiB of address space; two arenas keep
      // the baseline steady however many threads isolated-vm starts.
      env: { ...env, MALLOC_ARENA_MAX: '2' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.pid = this.#child.pid ?? 0;
    this.#child.stderr?.on('data', (b: Buffer) => (this.#stderr = (this.#stderr + b.toString('utf8')).slice(-STDERR_TAIL_CHARS)));
    // Neither an idle worker nor its pipes keep the service alive; a run's own timer does.
    this.#child.unref();
    this.#child.channel?.unref();
    (this.#child.stderr as Socket | null)?.unref();
    this.exited = this.#watchExit();
    this.ready = this.#handshake(launch);
    this.ready.catch(() => {});
    this.#child.on('message', (raw: unknown) => this.#receive(raw));
  }

  /** False once the worker was killed or died. */
  get alive(): boolean {
    return this.#killedFor === null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** True while the worker's idle address space is within half the margin of its baseline. */
  fits(asMarginMb: number): boolean {
    try {
      return readVmSizeBytes(this.pid) <= this.#baselineBytes + (asMarginMb / 2) * 1024 * 1024;
    } catch {
      return false;
    }
  }

  /** Why the service killed this worker, if it did. */
  get killedFor(): string | null {
    return this.#killedFor;
  }

  /** The RLIMIT_AS applied to this worker, in bytes (0 until ready). */
  get limitBytes(): number {
    return this.#limitBytes;
  }

  /** Sends a run; `on` hears its messages until {@link end}. */
  begin(request: RunRequest, on: RunListener): void {
    // Killed between being taken and being given the run (shutdown): the run hears so at once.
    const exit = this.#exit;
    if (exit !== null) {
      queueMicrotask(() => on.gone(exit));
      return;
    }
    this.#listener = { id: request.id, on };
    this.#child.send(request, undefined, undefined, (err) => {
      // A worker that cannot take its run is of no further use; `gone` follows.
      if (err !== null && err !== undefined) this.kill('send-failed');
    });
  }

  /** Stops delivering messages to the current run. */
  end(): void {
    this.#listener = null;
  }

  /** SIGKILLs the worker (idempotent); `exited` resolves once it is gone. */
  kill(reason: string): void {
    if (this.#killedFor !== null) return;
    this.#killedFor = reason;
    // Whoever awaits `exited` must not see the service's event loop end first.
    this.#child.ref();
    this.#child.channel?.ref();
    (this.#child.stderr as Socket | null)?.ref();
    this.#child.kill('SIGKILL');
  }

  async #handshake(launch: WorkerLaunch): Promise<void> {
    const deadline = performance.now() + launch.startTimeoutMs;
    const ready = Promise.withResolvers<void>();
    this.#onReady = ready.resolve;
    const timer = setTimeout(() => {
      this.kill('start-timeout');
      ready.reject(new JsWorkerError(JsWorkerErrorCode.StartTimeout, `worker not ready within ${launch.startTimeoutMs} ms`));
    }, launch.startTimeoutMs);
    const died = this.exited.then((exit) => {
      throw new JsWorkerError(JsWorkerErrorCode.StartFailed, `worker exited before it was ready (${exit.signal ?? exit.code}): ${exit.stderrTail.trim()}`);
    });
    try {
      await Promise.race([ready.promise, died]);
      this.#baselineBytes = readVmSizeBytes(this.pid);
      this.#limitBytes = addressSpaceLimitBytes(this.#baselineBytes, launch.memoryMb, launch.asMarginMb);
      const timeoutMs = Math.max(1, Math.ceil(deadline - performance.now()));
      await Promise.race([applyAddressSpaceLimit(this.pid, this.#limitBytes, { prlimitPath: launch.prlimitPath, timeoutMs }), died]);
    } catch (err) {
      this.kill('start-failed');
      throw err instanceof JsWorkerError ? err : new JsWorkerError(JsWorkerErrorCode.StartFailed, String(err), { cause: err });
    } finally {
      clearTimeout(timer);
      died.catch(() => {});
    }
  }

  #receive(raw: unknown): void {
    if (this.#killedFor !== null) return;
    const parsed = WorkerMessage.safeParse(raw);
    if (!parsed.success) {
      this.kill(JsWorkerErrorCode.Protocol);
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') {
      this.#onReady();
      return;
    }
    if (message.type === 'idle') {
      this.#hooks.idle(this);
      return;
    }
    const run = this.#listener;
    if (run === null || run.id !== message.id) {
      this.kill(JsWorkerErrorCode.Protocol);
      return;
    }
    if (message.type === 'output') run.on.output(message);
    else if (message.type === 'result') run.on.result(message);
    else run.on.failed(message.message);
  }

  #watchExit(): Promise<WorkerExit> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (code: number | null, signal: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        const exit: WorkerExit = { code, signal, killedFor: this.#killedFor, stderrTail: this.#stderr };
        this.#exit = exit;
        this.#listener?.on.gone(exit);
        this.#listener = null;
        this.#hooks.exited(this, exit);
        resolve(exit);
      };
      // 'close' comes after the IPC pipe is drained, so output sent before death is delivered first.
      this.#child.once('close', (code, signal) => settle(code, signal));
      this.#child.once('exit', (code, signal) => setTimeout(() => settle(code, signal), CLOSE_TIMEOUT_MS).unref());
      this.#child.once('error', () => {
        // Spawning failed: no process, so no 'close' may follow.
        if (this.#child.pid === undefined) settle(null, null);
      });
    });
  }
}
