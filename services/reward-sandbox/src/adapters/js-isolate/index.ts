// The JavaScript/TypeScript fast path: runs `nodejs` and `typescript` programs in a
// fresh V8 isolate (isolated-vm) instead of a bubblewrap-sandboxed `node` process.
// The isolates live in worker processes (js-isolate/worker/), never in the service:
// one run per worker at a time. A run's memory is its isolate's limit (heap and every
// ArrayBuffer; the isolate has no WebAssembly, whose memory that limit would not
// count), each worker has an address-space limit as a backstop, and a worker
// that overruns its deadline, dies or may hold a stuck thread is SIGKILLed and
// replaced by a warm spare.
//
// Supported surface (js-isolate/runtime/*.js): CommonJS scripts, and ES modules
// (detected from the syntax as Node 22+ does; top-level await works); console with
// Node's util.format/inspect output; process (argv, env = {}, exit, exitCode,
// stdin/stdout/stderr streams, nextTick, hrtime, on('exit'|'beforeExit'|
// 'uncaughtException')); setTimeout/setInterval/setImmediate on the real clock
// (the worker sleeps between timers, outside the isolate; a next timer due after
// the time limit, with nothing else to run, ends the run as TimeLimitExceeded then);
// queueMicrotask; performance.now; and the builtins in js-isolate/modules.ts: fs
// (stdin via readFileSync(0 | '/dev/stdin'), stdout/stderr writes, an in-memory
// scratch store for other paths), readline(/promises), events, util, assert(/strict),
// os, timers(/promises). Nothing else from Node exists: other `require`s throw
// "Cannot find module", other imports ERR_MODULE_NOT_FOUND. canRunInIsolate()
// decides statically which programs qualify; the service sends the rest (files,
// fetchFiles, other builtins, Buffer/fetch/URL/TextEncoder...) to the native runner.
//
// Semantics follow SandboxFusion's `node file.js` / `tsx file.ts`: no compile stage
// (compile_result is null), a crash is status Finished with return code 1 and Node's
// error text on stderr, a timeout is TimeLimitExceeded with a null return code, and,
// as from the pipe of a real node process, whatever the program wrote before a
// time-out, a crash or its memory limit comes back (worker/output-channel.ts).

import type { SelectiveRunner } from '../../core/executor.ts';
import { type CommandResult, CommandStatus, type RunOutcome, type RunSpec } from '../../core/runner.ts';
import { clampMemory, workerMemoryMb } from './memory.ts';
import { canRunInIsolate } from './static-check.ts';
import { formatTypeScriptError, toJavaScript } from './typescript.ts';
import { findPrlimit } from './worker/address-space.ts';
import { JsWorkerError, JsWorkerErrorCode } from './worker/errors.ts';
import { runOnWorker } from './worker/run-on-worker.ts';
import { WorkerPool, type WorkerEvent } from './worker/worker-pool.ts';
import { WorkerProcess } from './worker/worker-process.ts';

export { canRunInIsolate } from './static-check.ts';
export { clampMemory } from './memory.ts';
export type { WorkerEvent } from './worker/worker-pool.ts';

const WORK_DIR = '/sandbox';

/** Options for {@link IsolateRunner}. */
export interface IsolateRunnerOptions {
  /** Idle worker processes kept ready per memory limit in use (0: start one per run when none is idle). @default 1 */
  spareWorkers?: number;
  /** Idle workers kept per memory limit after a burst of concurrent runs. @default 2 */
  maxIdleWorkers?: number;
  /** Memory limits (MiB) to start spare workers for at construction. */
  warmMemoryMb?: number[];
  /**
   * Past a run's timeout, how long its worker has to answer before it is
   * SIGKILLed. Longer than the worker's own watchdog (250 ms), which answers for
   * an isolate that ignores termination. @default 500
   */
  killGraceMs?: number;
  /** From forking a worker to its limit being applied. @default 10000 */
  workerStartTimeoutMs?: number;
  /**
   * Address space a worker may use beyond its idle baseline and the run's
   * memory limit (thread stacks, allocator arenas, IPC, copies of input and
   * output); a program can hold at most memory limit + this. @default 256
   */
  addressSpaceMarginMb?: number;
  /** Node binary for the workers. @default process.execPath */
  nodePath?: string;
  /** prlimit(1), used to set each worker's address-space limit. @default found in /usr/bin, /bin, /usr/sbin, /sbin */
  prlimitPath?: string;
  /** Worker lifecycle (started, failed to start, exited and why). */
  onWorkerEvent?: (event: WorkerEvent) => void;
  /** A fatal V8 out-of-memory in a worker (the worker is replaced; worth a log line). */
  onCatastrophicError?: (message: string) => void;
}

/**
 * Runner for `nodejs` and `typescript` inside isolated-vm, in worker processes:
 * one of the executor's fast paths (the python zygote is the other), taking only
 * programs that need no Node built-ins or files. A worker process that is killed
 * or dies is replaced; only while no worker can be started at all does
 * JavaScript go to the native sandbox (the pool keeps retrying).
 */
export class IsolateRunner implements SelectiveRunner {
  readonly name = 'isolated-vm';
  readonly #pool: WorkerPool;
  readonly #killGraceMs: number;
  readonly #onCatastrophe: (message: string) => void;
  #nextId = 0;

  /** Throws a {@link JsWorkerError} (`JS_WORKER_LIMIT_FAILED`) when prlimit(1) is missing. */
  constructor(options: IsolateRunnerOptions = {}) {
    const prlimitPath = options.prlimitPath ?? findPrlimit();
    if (prlimitPath === undefined) {
      throw new JsWorkerError(JsWorkerErrorCode.LimitFailed, 'prlimit(1) not found: JavaScript workers cannot be memory-limited');
    }
    const asMarginMb = options.addressSpaceMarginMb ?? 256;
    const launch = {
      execPath: options.nodePath ?? process.execPath,
      startTimeoutMs: options.workerStartTimeoutMs ?? 10_000,
      asMarginMb,
      prlimitPath,
    };
    this.#killGraceMs = options.killGraceMs ?? 500;
    this.#onCatastrophe = options.onCatastrophicError ?? (() => {});
    this.#pool = new WorkerPool({
      spares: options.spareWorkers ?? 1,
      maxIdle: Math.max(options.maxIdleWorkers ?? 2, options.spareWorkers ?? 1),
      maxKeys: 4,
      asMarginMb,
      launch: (memoryMb, hooks) => new WorkerProcess({ ...launch, memoryMb }, hooks),
      onEvent: options.onWorkerEvent ?? (() => {}),
    });
    for (const mb of options.warmMemoryMb ?? []) this.#pool.warm(workerMemoryMb(clampMemory(mb)));
  }

  /** False while worker processes cannot be started (the service then runs JavaScript natively). */
  get available(): boolean {
    return this.#pool.available;
  }

  /** Pids of the live worker processes. */
  workerPids(): number[] {
    return this.#pool.pids();
  }

  languages(): ReadonlyArray<string> {
    return ['nodejs', 'typescript'];
  }

  canRun(spec: RunSpec): boolean {
    return this.available && canRunInIsolate(spec);
  }

  async run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome> {
    signal.throwIfAborted();
    const started = performance.now();
    const typescript = spec.language === 'typescript';
    const filename = `${WORK_DIR}/main.${typescript ? 'ts' : 'js'}`;
    let js = spec.code;
    if (typescript) {
      try {
        js = toJavaScript(spec.code);
      } catch (err) {
        const stderr = formatTypeScriptError(err, filename, process.version);
        return { compile_result: null, run_result: finished(started, 1, '', stderr), files: {}, notes: [] };
      }
    }
    // Node skips a leading hashbang line; inside the function wrapper it would not parse.
    if (js.startsWith('#!')) js = `//${js.slice(2)}`;
    // Strip mode keeps every character position, so error excerpts can quote the
    // TypeScript the user wrote; transform mode (enums...) moves code around.
    const display = typescript && js.length === spec.code.length ? spec.code : null;
    const memoryMb = clampMemory(spec.memoryLimitMb);
    const worker = await this.#pool.take(workerMemoryMb(memoryMb), signal);
    const request = {
      type: 'run' as const,
      id: this.#nextId++,
      language: typescript ? ('typescript' as const) : ('nodejs' as const),
      filename,
      js,
      display,
      stdin: spec.stdin,
      runTimeoutMs: Math.max(1, Math.ceil(spec.runTimeoutMs)),
      memoryMb,
      maxOutputBytes: Math.max(0, Math.floor(spec.maxOutputBytes)),
    };
    return runOnWorker(worker, request, this.#pool, { killGraceMs: this.#killGraceMs, signal, onCatastrophe: this.#onCatastrophe });
  }

  /** Kills every worker process and waits until they are gone (shutdown, tests). */
  close(): Promise<void> {
    return this.#pool.close();
  }
}

function finished(started: number, code: number, stdout: string, stderr: string): CommandResult {
  return {
    status: CommandStatus.Finished,
    execution_time: (performance.now() - started) / 1000,
    return_code: code,
    stdout,
    stderr,
  };
}
