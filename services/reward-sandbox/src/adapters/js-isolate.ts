// The JavaScript/TypeScript fast path: runs `nodejs` and `typescript` programs in a
// fresh V8 isolate (isolated-vm) instead of a bubblewrap-sandboxed `node` process.
//
// Supported surface (js-isolate/*-source.ts): CommonJS scripts, and ES modules
// (detected from the syntax as Node 22+ does; top-level await works); console with
// Node's util.format/inspect output; process (argv, env = {}, exit, exitCode,
// stdin/stdout/stderr streams, nextTick, hrtime, on('exit'|'beforeExit'|
// 'uncaughtException')); setTimeout/setInterval/setImmediate on a virtual clock
// (never sleeps; a timer due after the time limit is a TimeLimitExceeded);
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
// error text on stderr, a timeout is TimeLimitExceeded with a null return code, and
// output still buffered inside the isolate (under 64 KiB / 50 ms) is lost then.

import ivm from 'isolated-vm';
import { CommandStatus, type CommandResult, type RunOutcome, type RunSpec, type Runner } from '../core/runner.ts';
import { ModuleLinkError, esmRetryKind, formatCompileError, formatHostError } from './js-isolate/host-errors.ts';
import { isolateModule } from './js-isolate/modules.ts';
import { OutputSink } from './js-isolate/output.ts';
import { IsolatePool, disposeQuietly, type PreparedIsolate } from './js-isolate/pool.ts';
import { formatTypeScriptError, toJavaScript } from './js-isolate/typescript.ts';

export { canRunInIsolate } from './js-isolate/static-check.ts';

const MIN_MEMORY_MB = 8;
const MAX_MEMORY_MB = 2048;
const WORK_DIR = '/sandbox';
// Wrapper mirroring Node's CommonJS module wrapper; its first line gets lineOffset -1
// so that stack traces and syntax errors report the user's own line numbers.
const CJS_PREFIX = 'globalThis[Symbol.for("sandbox.main")](function (exports, require, module, __filename, __dirname) {\n';
const CJS_SUFFIX = '\n})';
// Code longer than this is compiled off the event loop thread.
const SYNC_COMPILE_LIMIT = 64 * 1024;
// Stdin plus code longer than this is copied into the isolate off the event loop thread.
const LARGE_INPUT_CHARS = 1 << 20;
// Printing a fatal error runs no program code; this only guards against a wedged isolate.
const DIE_TIMEOUT_MS = 1000;
// Extra time past the run timeout before the watchdog disposes the isolate outright.
const HARD_STOP_GRACE_MS = 250;
const OOM_MESSAGE = 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory';
// Node aborts on heap exhaustion; a shell reports that as 128 + SIGABRT.
const OOM_EXIT_CODE = 134;

type Final = [number, string, string];

/** Options for {@link IsolateRunner}. */
export interface IsolateRunnerOptions {
  /** Prepared isolates kept per memory limit (0 disables the pool). Default 2. */
  warmIsolates?: number;
  /** Memory limits (MiB) to prepare isolates for at construction. */
  warmMemoryMb?: number[];
  /**
   * Called when isolated-vm reports a catastrophic error (a fatal V8 out-of-memory):
   * that isolate's thread and heap stay allocated until the process exits, so the
   * service should log it and plan a restart.
   */
  onCatastrophicError?: (message: string) => void;
  /** After this many catastrophic errors run() refuses work (a sandbox failure). Default 4. */
  maxCatastrophes?: number;
}

/** Runner for `nodejs` and `typescript` inside isolated-vm. */
export class IsolateRunner implements Runner {
  readonly name = 'isolated-vm';
  readonly #pool: IsolatePool;
  readonly #maxCatastrophes: number;
  #catastrophes = 0;

  constructor(options: IsolateRunnerOptions = {}) {
    this.#maxCatastrophes = options.maxCatastrophes ?? 4;
    this.#pool = new IsolatePool(options.warmIsolates ?? 2, 4, (message) => {
      this.#catastrophes++;
      options.onCatastrophicError?.(message);
    });
    for (const mb of options.warmMemoryMb ?? []) this.#pool.warm(clampMemory(mb));
  }

  /** Number of catastrophic isolate errors so far (each leaks one parked isolate). */
  get catastrophes(): number {
    return this.#catastrophes;
  }

  languages(): ReadonlyArray<string> {
    return ['nodejs', 'typescript'];
  }

  async run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome> {
    signal.throwIfAborted();
    if (this.#catastrophes >= this.#maxCatastrophes) {
      throw new Error(`isolated-vm runner disabled after ${this.#catastrophes} catastrophic isolate errors; restart the service`);
    }
    const started = performance.now();
    const typescript = spec.language === 'typescript';
    const filename = `${WORK_DIR}/main.${typescript ? 'ts' : 'js'}`;
    let js = spec.code;
    if (typescript) {
      try {
        js = toJavaScript(spec.code);
      } catch (err) {
        const stderr = formatTypeScriptError(err, filename, process.version);
        return outcome(finished(started, 1, '', stderr), []);
      }
    }
    // Node skips a leading hashbang line; inside the function wrapper it would not parse.
    if (js.startsWith('#!')) js = `//${js.slice(2)}`;
    // Strip mode keeps every character position, so error excerpts can quote the
    // TypeScript the user wrote; transform mode (enums...) moves code around.
    const display = typescript && js.length === spec.code.length ? spec.code : js;
    const vm = await this.#pool.take(clampMemory(spec.memoryLimitMb));
    const release = (isolate: ivm.Isolate | null): void => this.#pool.release(isolate);
    return new Execution(vm, spec, filename, js, display, started, signal, release).run();
  }

  /** Disposes the prepared isolates (for shutdown and tests). */
  close(): void {
    this.#pool.close();
  }
}

/** Clamps a memory limit in MiB to what an isolate accepts and this service allows. */
export function clampMemory(mb: number): number {
  if (!Number.isFinite(mb)) return 256;
  return Math.min(MAX_MEMORY_MB, Math.max(MIN_MEMORY_MB, Math.round(mb)));
}

// One program run in one prepared isolate.
class Execution {
  readonly #vm: PreparedIsolate;
  readonly #spec: RunSpec;
  readonly #filename: string;
  readonly #js: string;
  readonly #display: string;
  readonly #started: number;
  readonly #deadline: number;
  readonly #signal: AbortSignal;
  readonly #sink: OutputSink;
  readonly #release: (isolate: ivm.Isolate | null) => void;
  #exitCode: number | null = null;
  #stopped: 'timeout' | 'abort' | 'catastrophe' | null = null;
  // Settles when the run is stopped from outside (watchdog, abort, catastrophe): a
  // parked isolate never settles its own promises, so every wait races this one.
  readonly #halted: Promise<never>;
  #halt: () => void = () => {};
  // Set while an ES module body runs: what it throws is an uncaught exception, not a rejection.
  #evaluating = false;

  constructor(
    vm: PreparedIsolate,
    spec: RunSpec,
    filename: string,
    js: string,
    display: string,
    started: number,
    signal: AbortSignal,
    release: (isolate: ivm.Isolate | null) => void,
  ) {
    this.#vm = vm;
    this.#spec = spec;
    this.#filename = filename;
    this.#js = js;
    this.#display = display;
    this.#started = started;
    this.#deadline = started + spec.runTimeoutMs;
    this.#signal = signal;
    this.#sink = new OutputSink(spec.maxOutputBytes);
    this.#release = release;
    this.#halted = new Promise<never>((_, reject) => {
      this.#halt = () => reject(new Error('run stopped'));
    });
    this.#halted.catch(() => {});
  }

  async run(): Promise<RunOutcome> {
    const { isolate } = this.#vm;
    const stop = (reason: 'timeout' | 'abort' | 'catastrophe'): void => {
      this.#stopped ??= reason;
      // A parked isolate cannot be disposed (isolated-vm would report a second catastrophe).
      if (reason !== 'catastrophe') disposeQuietly(isolate);
      this.#halt();
    };
    this.#vm.onCatastrophe = () => stop('catastrophe');
    const watchdog = setTimeout(() => stop('timeout'), this.#spec.runTimeoutMs + HARD_STOP_GRACE_MS);
    const onAbort = (): void => stop('abort');
    this.#signal.addEventListener('abort', onAbort, { once: true });
    if (this.#signal.aborted) onAbort();
    try {
      const final = await this.#drive();
      return this.#finish(final);
    } catch (err) {
      return await this.#fail(err);
    } finally {
      clearTimeout(watchdog);
      this.#signal.removeEventListener('abort', onAbort);
      // A parked isolate is left alone (see pool.ts); the run still ends for the pool.
      this.#release(this.#stopped === 'catastrophe' ? null : isolate);
    }
  }

  // Starts the program and drives its event loop; returns [code, stdout, stderr] tails,
  // or 'tle' when the next timer is due after the time limit.
  async #drive(): Promise<Final | 'tle'> {
    const { ctl } = this.#vm;
    const write = new ivm.Callback((fd: unknown, text: unknown) =>
      (fd === 1 || fd === 2) && typeof text === 'string' ? this.#sink.write(fd, text) : false,
    );
    const exit = new ivm.Callback((code: unknown) => {
      this.#exitCode = typeof code === 'number' && Number.isInteger(code) ? code : 1;
      // Disposing stops the program where it stands, like process.exit() does.
      disposeQuietly(this.#vm.isolate);
    });
    const config = JSON.stringify({
      filename: this.#filename,
      dirname: WORK_DIR,
      version: process.version,
      budgetMs: this.#spec.runTimeoutMs,
      source: this.#display,
      outputCap: Math.max(0, Math.floor(this.#spec.maxOutputBytes)),
      // tsx compiles TypeScript to CommonJS, so `require` & co. also exist next to `import`.
      cjsGlobals: this.#spec.language === 'typescript',
    });
    const startArgs = ['start', this.#spec.stdin ?? '', write, exit, config];
    // 'start' runs no program code; only a large stdin copy is worth leaving the event loop for.
    if ((this.#spec.stdin?.length ?? 0) + this.#js.length < LARGE_INPUT_CHARS) ctl.applySync(undefined, startArgs);
    else await this.#guard(ctl.apply(undefined, startArgs));

    const entered = await this.#enter();
    if (entered !== null) return entered;
    for (;;) {
      const remaining = this.#remaining();
      if (remaining <= 1 && performance.now() >= this.#deadline) return 'tle';
      const step = await this.#guard(ctl.apply(undefined, ['step'], { result: { copy: true }, timeout: remaining }));
      if (step === 'tle') return 'tle';
      if (Array.isArray(step)) return step as Final;
    }
  }

  // Compiles and runs the main script (CommonJS, or an ES module when the source uses
  // module syntax, as Node 22+ detects it). Returns a final tuple if it ended early.
  async #enter(): Promise<Final | null> {
    const { isolate, context } = this.#vm;
    const source = CJS_PREFIX + this.#js + CJS_SUFFIX;
    const origin = { filename: this.#filename, lineOffset: -1 };
    let script: ivm.Script;
    try {
      script =
        source.length <= SYNC_COMPILE_LIMIT
          ? isolate.compileScriptSync(source, origin)
          : await this.#guard(isolate.compileScript(source, origin));
    } catch (err) {
      if (isolate.isDisposed) throw err;
      const retry = esmRetryKind(err);
      let reported = err;
      if (retry !== null) {
        try {
          const module = await this.#guard(isolate.compileModule(this.#js, { filename: `file://${this.#filename}` }));
          await this.#runModule(module);
          return null;
        } catch (esmErr) {
          if (isolate.isDisposed || !isCompileError(esmErr)) throw esmErr;
          // Like Node: a definite ES module reports its own syntax error, a retry the original one.
          if (retry === 'esm') reported = esmErr;
        }
      }
      return await this.#die(formatCompileError(reported, this.#filename, this.#display, process.version));
    }
    await this.#guard(script.run(context, { timeout: this.#remaining(), release: true }));
    return null;
  }

  async #runModule(module: ivm.Module): Promise<void> {
    const { isolate, context } = this.#vm;
    const builtins = new Map<string, ivm.Module>();
    const resolve = (specifier: string): ivm.Module => {
      const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
      const shape = isolateModule(name);
      if (shape === undefined) {
        const what = /^[./]/.test(specifier) ? 'module' : 'package';
        throw new ModuleLinkError('ERR_MODULE_NOT_FOUND', `Cannot find ${what} '${specifier}' imported from ${this.#filename}`);
      }
      let synthetic = builtins.get(name);
      if (synthetic === undefined) {
        const members = shape.members.join(', ');
        synthetic = isolate.compileModuleSync(
          `const m = globalThis[Symbol.for('sandbox.require')](${JSON.stringify(name)});\n` +
            `export default m;\nexport const { ${members} } = m;\n`,
          { filename: `node:${name}` },
        );
        synthetic.instantiateSync(context, () => {
          throw new Error('builtin modules have no imports');
        });
        builtins.set(name, synthetic);
      }
      return synthetic;
    };
    await this.#guard(module.instantiate(context, resolve));
    this.#evaluating = true;
    await this.#guard(module.evaluate({ timeout: this.#remaining() }));
    this.#evaluating = false;
  }

  #remaining(): number {
    return Math.max(1, Math.ceil(this.#deadline - performance.now()));
  }

  // Prints a host-formatted fatal error through the runtime (keeping output order) and ends the run.
  async #die(text: string): Promise<Final> {
    return (await this.#guard(
      this.#vm.ctl.apply(undefined, ['die', text, 1], { result: { copy: true }, timeout: DIE_TIMEOUT_MS }),
    )) as Final;
  }

  #guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#halted]);
  }

  #finish(final: Final | 'tle'): RunOutcome {
    if (final === 'tle') return this.#timeLimit();
    const [code, out, err] = final;
    this.#sink.write(1, out);
    this.#sink.write(2, err);
    return outcome(this.#result(CommandStatus.Finished, code), this.#sink.notes());
  }

  async #fail(err: unknown): Promise<RunOutcome> {
    const { isolate } = this.#vm;
    if (this.#stopped === 'abort') throw this.#signal.reason ?? err;
    if (this.#exitCode !== null) {
      return outcome(this.#result(CommandStatus.Finished, this.#exitCode), this.#sink.notes());
    }
    if (this.#stopped === 'timeout') return this.#timeLimit();
    if (this.#stopped === 'catastrophe') return this.#outOfMemory();
    const message = err instanceof Error ? err.message : '';
    if (isolate.isDisposed && /memory limit/i.test(message)) return this.#outOfMemory();
    if (message === 'Script execution timed out.' && performance.now() >= this.#deadline - 5) return this.#timeLimit();
    if (isolate.isDisposed) throw err;
    // The program's own failure (unhandled rejection, ES module error): print it like Node.
    let final: Final;
    try {
      final = await this.#die(formatHostError(err, this.#filename, this.#display, process.version, this.#evaluating));
    } catch (dieErr) {
      if (isolate.isDisposed && /memory limit/i.test(dieErr instanceof Error ? dieErr.message : '')) return this.#outOfMemory();
      throw dieErr;
    }
    return this.#finish(final);
  }

  #timeLimit(): RunOutcome {
    disposeQuietly(this.#vm.isolate);
    return outcome(this.#result(CommandStatus.TimeLimitExceeded, null), this.#sink.notes());
  }

  #outOfMemory(): RunOutcome {
    const mb = clampMemory(this.#spec.memoryLimitMb);
    this.#sink.write(2, `\n<--- sandbox memory limit of ${mb} MiB reached --->\n${OOM_MESSAGE}\n`);
    const result = this.#result(CommandStatus.Finished, OOM_EXIT_CODE);
    result.memory_limit_exceeded = true;
    return outcome(result, this.#sink.notes());
  }

  #result(status: CommandStatus, code: number | null): CommandResult {
    const result: CommandResult = {
      status,
      execution_time: (performance.now() - this.#started) / 1000,
      return_code: code,
      stdout: this.#sink.text(1),
      stderr: this.#sink.text(2),
    };
    if (this.#sink.truncated(1) || this.#sink.truncated(2)) result.output_truncated = true;
    return result;
  }
}

// Compile errors come back from isolated-vm as host SyntaxErrors tagged "[file:line:col]".
function isCompileError(err: unknown): boolean {
  return err instanceof SyntaxError && / \[[^\]]*:\d+:\d+\]$/.test(err.message);
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

function outcome(run: CommandResult, notes: string[]): RunOutcome {
  return { compile_result: null, run_result: run, files: {}, notes };
}
