// One program run in one prepared isolate, inside a worker process. The run's
// semantics are those the service always had (see ../index.ts); what is
// specific to the worker is that output leaves through an OutputChannel (shared
// memory the worker reads while the program runs and whatever stopped it, so
// nothing written is lost, see output-channel.ts), and that a run whose isolate
// may keep a thread (given up by the watchdog, or parked by a fatal V8 OOM) asks
// for its worker to be retired.

import ivm from 'isolated-vm';
import { ModuleLinkError, esmRetryKind, formatCompileError, formatHostError } from '../host-errors.ts';
import { OOM_EXIT_CODE, diedOfAllocationFailure, outOfMemoryNotice } from '../memory.ts';
import { isolateModule } from '../modules.ts';
import type { OutputSink } from '../output.ts';
import { disposeQuietly, type PreparedIsolate } from '../prepared-isolate.ts';
import { OutputChannel, POLL_MS } from './output-channel.ts';
import { RetireReason, type RunRequest } from './protocol.ts';

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

type Final = [number];

/** How a run ended; its output went through the sink. */
export interface ExecutionReport {
  status: 'Finished' | 'TimeLimitExceeded';
  returnCode: number | null;
  executionTimeS: number;
  memoryLimitExceeded: boolean;
  retire: RetireReason | null;
  catastrophe: string | null;
}

/** One program run in one prepared isolate; `release` gets the isolate back (null: leave it parked). */
export class Execution {
  readonly #vm: PreparedIsolate;
  readonly #req: RunRequest;
  readonly #display: string;
  readonly #started: number;
  readonly #deadline: number;
  readonly #sink: OutputSink;
  readonly #channel: OutputChannel;
  readonly #release: (isolate: ivm.Isolate | null) => void;
  #exitCode: number | null = null;
  #stopped: 'timeout' | 'catastrophe' | null = null;
  #catastrophe: string | null = null;
  // Settles when the run is stopped from outside (watchdog, catastrophe): a parked
  // isolate never settles its own promises, so every wait races this one.
  readonly #halted: Promise<never>;
  #halt: () => void = () => {};
  // Set while an ES module body runs: what it throws is an uncaught exception, not a rejection.
  #evaluating = false;

  constructor(vm: PreparedIsolate, req: RunRequest, started: number, sink: OutputSink, release: (isolate: ivm.Isolate | null) => void) {
    this.#vm = vm;
    this.#req = req;
    this.#display = req.display ?? req.js;
    this.#started = started;
    this.#deadline = started + req.runTimeoutMs;
    this.#sink = sink;
    this.#channel = new OutputChannel(sink);
    this.#release = release;
    this.#halted = new Promise<never>((_, reject) => {
      this.#halt = () => reject(new Error('run stopped'));
    });
    this.#halted.catch(() => {});
  }

  async run(): Promise<ExecutionReport> {
    const { isolate } = this.#vm;
    const stop = (reason: 'timeout' | 'catastrophe'): void => {
      this.#stopped ??= reason;
      // A parked isolate cannot be disposed (isolated-vm would report a second catastrophe).
      if (reason !== 'catastrophe') disposeQuietly(isolate);
      this.#halt();
    };
    this.#vm.onCatastrophe = (message) => {
      this.#catastrophe = message;
      stop('catastrophe');
    };
    const watchdog = setTimeout(() => stop('timeout'), this.#req.runTimeoutMs + HARD_STOP_GRACE_MS);
    const poller = setInterval(() => this.#channel.poll(), POLL_MS);
    try {
      const final = await this.#drive();
      return this.#finish(final);
    } catch (err) {
      return await this.#fail(err);
    } finally {
      clearTimeout(watchdog);
      clearInterval(poller);
      this.#release(this.#stopped === 'catastrophe' ? null : isolate);
    }
  }

  // Starts the program and drives its event loop; returns [code], or 'tle' when the
  // time limit is reached (or the next timer is due after it).
  async #drive(): Promise<Final | 'tle'> {
    const { ctl } = this.#vm;
    const write = new ivm.Callback((fd: unknown, text: unknown) => this.#channel.write(fd, text));
    const exit = new ivm.Callback((code: unknown) => {
      this.#exitCode = typeof code === 'number' && Number.isInteger(code) ? code : 1;
      // Disposing stops the program where it stands, like process.exit() does.
      disposeQuietly(this.#vm.isolate);
    });
    const config = JSON.stringify({
      filename: this.#req.filename,
      dirname: WORK_DIR,
      version: process.version,
      budgetMs: this.#req.runTimeoutMs,
      source: this.#display,
      outputCap: this.#req.maxOutputBytes,
      // tsx compiles TypeScript to CommonJS, so `require` & co. also exist next to `import`.
      cjsGlobals: this.#req.language === 'typescript',
    });
    const shared = new ivm.ExternalCopy(this.#channel.buffer).copyInto({ release: true });
    const startArgs = ['start', this.#req.stdin ?? '', write, exit, config, shared];
    // 'start' runs no program code; only a large stdin copy is worth leaving the event loop for.
    if ((this.#req.stdin?.length ?? 0) + this.#req.js.length < LARGE_INPUT_CHARS) ctl.applySync(undefined, startArgs);
    else await this.#guard(ctl.apply(undefined, startArgs));

    const entered = await this.#enter();
    if (entered !== null) return entered;
    for (;;) {
      const remaining = this.#remaining();
      if (remaining <= 1 && performance.now() >= this.#deadline) return 'tle';
      const step = await this.#guard(ctl.apply(undefined, ['step'], { result: { copy: true }, timeout: remaining }));
      if (step === 'tle') return 'tle';
      if (Array.isArray(step)) return step as Final;
      // Only timers are left, the next one due in -step ms: wait for it in real time.
      if (typeof step === 'number' && step < 0) await this.#guard(sleep(Math.min(-step, this.#deadline - performance.now())));
    }
  }

  // Compiles and runs the main script (CommonJS, or an ES module when the source uses
  // module syntax, as Node 22+ detects it). Returns a final tuple if it ended early.
  async #enter(): Promise<Final | null> {
    const { isolate, context } = this.#vm;
    const js = this.#req.js;
    const source = CJS_PREFIX + js + CJS_SUFFIX;
    const origin = { filename: this.#req.filename, lineOffset: -1 };
    let script: ivm.Script;
    try {
      script = source.length <= SYNC_COMPILE_LIMIT ? isolate.compileScriptSync(source, origin) : await this.#guard(isolate.compileScript(source, origin));
    } catch (err) {
      if (isolate.isDisposed) throw err;
      const retry = esmRetryKind(err);
      let reported = err;
      if (retry !== null) {
        try {
          const module = await this.#guard(isolate.compileModule(js, { filename: `file://${this.#req.filename}` }));
          await this.#runModule(module);
          return null;
        } catch (esmErr) {
          if (isolate.isDisposed || !isCompileError(esmErr)) throw esmErr;
          // Like Node: a definite ES module reports its own syntax error, a retry the original one.
          if (retry === 'esm') reported = esmErr;
        }
      }
      return await this.#die(formatCompileError(reported, this.#req.filename, this.#display, process.version));
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
        throw new ModuleLinkError('ERR_MODULE_NOT_FOUND', `Cannot find ${what} '${specifier}' imported from ${this.#req.filename}`);
      }
      let synthetic = builtins.get(name);
      if (synthetic === undefined) {
        const members = shape.members.join(', ');
        synthetic = isolate.compileModuleSync(
          `const m = globalThis[Symbol.for('sandbox.require')](${JSON.stringify(name)});\n` + `export default m;\nexport const { ${members} } = m;\n`,
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
    return (await this.#guard(this.#vm.ctl.apply(undefined, ['die', text, 1], { result: { copy: true }, timeout: DIE_TIMEOUT_MS }))) as Final;
  }

  #guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#halted]);
  }

  #finish(final: Final | 'tle'): ExecutionReport {
    if (final === 'tle') return this.#timeLimit();
    return this.#report('Finished', final[0]);
  }

  async #fail(err: unknown): Promise<ExecutionReport> {
    const { isolate } = this.#vm;
    if (this.#exitCode !== null) return this.#report('Finished', this.#exitCode);
    if (this.#stopped === 'timeout') return this.#timeLimit();
    if (this.#stopped === 'catastrophe') return this.#outOfMemory();
    const message = err instanceof Error ? err.message : '';
    if (isolate.isDisposed && /memory limit/i.test(message)) return this.#outOfMemory();
    if (message === 'Script execution timed out.' && performance.now() >= this.#deadline - 5) return this.#timeLimit();
    if (isolate.isDisposed) throw err;
    // The program's own failure (unhandled rejection, ES module error): print it like Node.
    let final: Final;
    try {
      final = await this.#die(formatHostError(err, this.#req.filename, this.#display, process.version, this.#evaluating));
    } catch (dieErr) {
      if (isolate.isDisposed && /memory limit/i.test(dieErr instanceof Error ? dieErr.message : '')) return this.#outOfMemory();
      throw dieErr;
    }
    return this.#finish(final);
  }

  #timeLimit(): ExecutionReport {
    disposeQuietly(this.#vm.isolate);
    return this.#report('TimeLimitExceeded', null);
  }

  #outOfMemory(): ExecutionReport {
    this.#channel.close();
    this.#sink.write(2, outOfMemoryNotice(this.#req.memoryMb));
    return { ...this.#report('Finished', OOM_EXIT_CODE), memoryLimitExceeded: true };
  }

  #report(status: ExecutionReport['status'], returnCode: number | null): ExecutionReport {
    // Whatever the program wrote is in the channel, however it ended.
    this.#channel.close();
    return {
      status,
      returnCode,
      executionTimeS: (performance.now() - this.#started) / 1000,
      // An uncaught allocation failure (an ArrayBuffer past the isolate's memory
      // limit) is the memory limit too, as the native runner judges it.
      memoryLimitExceeded: status === 'Finished' && diedOfAllocationFailure(returnCode, this.#sink.text(2)),
      retire: this.#stopped === 'timeout' ? RetireReason.Stuck : this.#stopped === 'catastrophe' ? RetireReason.Catastrophe : null,
      catastrophe: this.#catastrophe,
    };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

// Compile errors come back from isolated-vm as host SyntaxErrors tagged "[file:line:col]".
function isCompileError(err: unknown): boolean {
  return err instanceof SyntaxError && / \[[^\]]*:\d+:\d+\]$/.test(err.message);
}
