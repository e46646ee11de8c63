// Runs one sandbox process and watches it: wires stdio, feeds the data fds,
// times the compile and run phases from the supervisor's markers, and kills the
// whole tree at the deadline or on abort.
//
// The process tree: bash LAUNCHER (launcher.ts: joined the slot's cgroups,
// usually before the run arrived) -> [root prefix, setpriv: drop root] ->
// bash RELAY -> bwrap, detached (own process group). RELAY sends
// stdout/stderr through two `cat`s. The relays exist because
// Node gives children socketpairs, not pipes, and open("/dev/stdout") fails with
// ENXIO on a socket; the program should see real pipes, as under SandboxFusion.
// To kill, we SIGKILL the process group (launcher, relays, bwrap's monitor) and
// the sandbox's pid 1 (host pid from bwrap's --info-fd; --die-with-parent is the
// backstop); the kernel then kills everything in the pid namespace, background
// children included. That teardown is asynchronous, so after a kill we only
// settle once pid 1 is a zombie or gone, i.e. the namespace is empty.

import type { Duplex } from 'node:stream';
import { CappedBuffer } from './output.ts';
import { type ReportHooks, ReportParser } from './report.ts';
import { killInit, namespaceGone } from '../reaper.ts';
import type { Launcher } from './launcher.ts';
import { FD } from './supervisor.ts';

// Runs with the sandbox's host uid, so the relay pipes belong to that uid and the
// program may reopen them (/dev/stdout). First it drops every inherited fd we did
// not set up (one the service inherited without CLOEXEC must not reach the
// sandbox); the relays also close the report/compile/data channels.
const RELAY = [
  // No redirection on this loop: bash would park stderr on a high fd for it, and the loop would close that.
  'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt "$MAXFD" ]; then eval "exec $n>&-"; fi; done',
  'relay() { for ((f = 3; f <= MAXFD; f++)); do eval "exec $f>&-"; done; exec cat; }',
  'exec > >(relay) 2> >(relay >&2)',
  'exec "$@"',
].join('\n');

/** What to launch and how long each phase may take. */
export interface LaunchSpec {
  /** The launcher (already in the slot's cgroups) that execs the run; it needs >= data.length data fds. */
  launcher: Launcher;
  /** Privilege drop before the relay (setpriv argv), or empty. */
  dropPrivileges: string[];
  /** The bwrap command line. */
  command: string[];
  /** Contents of fds FD.firstData, FD.firstData+1, ... (read by bwrap's --file). */
  data: Uint8Array[];
  hasCompile: boolean;
  /** Called when the run starts after a successful compile. */
  onRunAfterCompile?: () => void;
  setupTimeoutMs: number;
  compileTimeoutMs: number;
  runTimeoutMs: number;
  /** Allowance past run_timeout for streaming fetch_files (only when there are any) and for exiting after a failed compile. */
  graceMs: number;
  maxOutputBytes: number;
  maxReportBytes: number;
  fetchCount: number;
}

/** How the sandbox process ended and what it produced. */
export interface Execution {
  /** bwrap's exit status; null if it was killed. */
  exitStatus: number | null;
  started: boolean;
  timedOut: 'setup' | 'compile' | 'run' | null;
  compileSeconds: number | null;
  compileStatus: number | null;
  runSeconds: number | null;
  runStatus: number | null;
  compileOut: CappedBuffer;
  compileErr: CappedBuffer;
  stdout: CappedBuffer;
  stderr: CappedBuffer;
  report: ReportParser;
}

/** Spawns the sandbox and resolves when it and its relays are gone; rejects on abort or spawn failure. */
export function execute(spec: LaunchSpec, signal: AbortSignal): Promise<Execution> {
  const launcher = spec.launcher;
  if (!launcher.usable || launcher.dataFds < spec.data.length) {
    return Promise.reject(new Error('sandbox launcher unusable (exited, used, or too few data fds)'));
  }
  return new Promise((resolve, reject) => new SandboxWatch(spec, signal, { resolve, reject }).start());
}

type Phase = 'setup' | 'compile' | 'run' | 'exit';
type Settle = { resolve: (x: Execution) => void; reject: (e: Error) => void };
const now = () => performance.now();

/** An empty record of one sandbox's execution; `report` calls `hooks` as the supervisor's markers arrive. */
function newExecution(spec: LaunchSpec, hooks: ReportHooks): Execution {
  return {
    exitStatus: null,
    started: false,
    timedOut: null,
    compileSeconds: null,
    compileStatus: null,
    runSeconds: null,
    runStatus: null,
    compileOut: new CappedBuffer(spec.maxOutputBytes),
    compileErr: new CappedBuffer(spec.maxOutputBytes),
    stdout: new CappedBuffer(spec.maxOutputBytes),
    stderr: new CappedBuffer(spec.maxOutputBytes),
    report: new ReportParser(spec.maxReportBytes, spec.fetchCount, hooks),
  };
}

/** One sandbox process from its start until it settles: its phases and their deadlines, its streams, its kill. */
class SandboxWatch {
  readonly #spec: LaunchSpec;
  readonly #signal: AbortSignal;
  readonly #settle: Settle;
  readonly #maxFd: number;
  readonly #io: Array<Duplex | null>;
  /**
   * The run's time, fixed when it starts: markers from the report channel could
   * be forged by the program, so none of them may extend it.
   */
  readonly #runMs: number;
  readonly #x: Execution;
  #phase: Phase = 'setup';
  #phaseStart = now();
  #deadline: number;
  #timer: NodeJS.Timeout | undefined;
  #killed = false;
  #settled = false;
  /** bwrap's --info-fd JSON (the sandbox's pid 1). */
  #info = '';

  constructor(spec: LaunchSpec, signal: AbortSignal, settle: Settle) {
    this.#spec = spec;
    this.#signal = signal;
    this.#settle = settle;
    this.#maxFd = FD.firstData + spec.data.length - 1;
    this.#io = spec.launcher.io.slice(0, this.#maxFd + 1);
    this.#runMs = spec.runTimeoutMs + (spec.fetchCount > 0 ? spec.graceMs : 0);
    this.#deadline = this.#phaseStart + spec.setupTimeoutMs;
    this.#x = newExecution(spec, {
      onStart: () => this.#onStart(),
      onCompiled: (rc) => this.#onCompiled(rc),
      onRunEnd: (rc) => this.#onRunEnd(rc),
    });
  }

  start(): void {
    const spec = this.#spec;
    this.#io[FD.info]!.on('data', (b: Buffer) => (this.#info = (this.#info + b.toString('latin1')).slice(0, 4096)));
    try {
      spec.launcher.start([...spec.dropPrivileges, '/bin/bash', '--norc', '--noprofile', '-c', RELAY, 'relay', ...spec.command], this.#maxFd);
    } catch (err) {
      this.#kill();
      this.#settle.reject(new Error(`cannot start the sandbox launcher: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    this.#signal.addEventListener('abort', this.#onAbort, { once: true });
    if (this.#signal.aborted) this.#kill();
    else this.#arm(); // the setup deadline: a sandbox that never reports its start is killed at it
    this.#collectOutput();
    this.#feedData();
    this.#io.forEach((s) => s?.on('error', () => {}));
    spec.launcher.child.on('error', (err) => {
      this.#kill();
      this.#finish(new Error(`cannot start the sandbox launcher: ${err.message}`));
    });
    spec.launcher.child.on('close', (code) => this.#onClose(code));
  }

  #onStart(): void {
    this.#x.started = true;
    if (this.#spec.hasCompile) this.#enter('compile', this.#spec.compileTimeoutMs);
    else this.#enter('run', this.#runMs);
  }

  #onCompiled(rc: number): void {
    if (this.#phase !== 'compile') return;
    this.#x.compileSeconds = this.#elapsedSeconds();
    this.#x.compileStatus = rc;
    // The program does not exist yet, so this marker is the supervisor's own.
    this.#enter(rc === 0 ? 'run' : 'exit', rc === 0 ? this.#runMs : this.#spec.graceMs);
    if (rc === 0) this.#spec.onRunAfterCompile?.();
  }

  #onRunEnd(rc: number): void {
    if (this.#phase !== 'run') return;
    // Latest marker wins: the real one comes after the program has exited, so an
    // early one forged by the program cannot shorten its time.
    this.#x.runSeconds = this.#elapsedSeconds();
    this.#x.runStatus = rc;
  }

  #elapsedSeconds(): number {
    return (now() - this.#phaseStart) / 1000;
  }

  #enter(next: Phase, ms: number): void {
    this.#phase = next;
    this.#phaseStart = now();
    this.#deadline = this.#phaseStart + ms;
    this.#arm();
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#onDeadline(), Math.max(0, this.#deadline - now()));
  }

  #onDeadline(): void {
    if (now() < this.#deadline) {
      this.#arm(); // timers may fire a hair early
      return;
    }
    const elapsed = this.#elapsedSeconds();
    if (this.#phase === 'compile') this.#x.compileSeconds = elapsed;
    if (this.#phase === 'run') this.#x.runSeconds = elapsed;
    // A kill during the run is a time-limit verdict even if an end marker came (it may be forged).
    this.#x.timedOut = this.#phase === 'exit' ? null : this.#phase;
    this.#kill();
  }

  readonly #onAbort = () => this.#kill();

  #initPid(): number {
    return Number(/"child-pid":\s*(\d+)/.exec(this.#info)?.[1] ?? 0);
  }

  #kill(): void {
    this.#killed = true;
    clearTimeout(this.#timer);
    try {
      process.kill(-this.#spec.launcher.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    killInit(this.#initPid());
    // Relays are in the group too, so 'close' follows; this is only a safety net.
    setTimeout(() => this.#io.forEach((s) => s?.destroy()), 3000).unref();
  }

  #collectOutput(): void {
    const x = this.#x;
    const sink = (i: number, into: { push(b: Buffer): void }) => this.#io[i]!.on('data', (b: Buffer) => into.push(b));
    sink(1, x.stdout);
    sink(2, x.stderr);
    sink(FD.report, x.report);
    sink(FD.compileOut, x.compileOut);
    sink(FD.compileErr, x.compileErr);
  }

  #feedData(): void {
    this.#spec.data.forEach((content, i) => {
      const w = this.#io[FD.firstData + i]!;
      w.on('error', () => {}); // bwrap died before reading it: the exit status tells the story
      w.end(content);
      w.resume(); // the socket is duplex; its read side must drain to EOF for 'close'
    });
  }

  #onClose(code: number | null): void {
    const x = this.#x;
    x.exitStatus = this.#killed ? null : code;
    if (this.#phase === 'run' && x.runSeconds === null) x.runSeconds = this.#elapsedSeconds();
    // Within the fetch allowance, but past run_timeout: still a time-limit verdict.
    if (this.#phase === 'run' && x.runSeconds !== null && x.runSeconds * 1000 > this.#spec.runTimeoutMs) x.timedOut = 'run';
    if (!this.#killed) {
      this.#finish(null); // bwrap's monitor outlives pid 1, so the namespace is already gone
      return;
    }
    const pid = this.#initPid();
    killInit(pid); // the info may have arrived after the kill
    void namespaceGone(pid).then(() => this.#finish(null));
  }

  #finish(err: Error | null): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#signal.removeEventListener('abort', this.#onAbort);
    if (err !== null) this.#settle.reject(err);
    else if (this.#signal.aborted) this.#settle.reject(this.#signal.reason instanceof Error ? this.#signal.reason : new Error('aborted'));
    else this.#settle.resolve(this.#x);
  }
}
