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

import { CappedBuffer } from './output.ts';
import { ReportParser } from './report.ts';
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
  return new Promise((resolve, reject) => {
    const maxFd = FD.firstData + spec.data.length - 1;
    const launcher = spec.launcher;
    if (!launcher.usable || launcher.dataFds < spec.data.length) {
      reject(new Error('sandbox launcher unusable (exited, used, or too few data fds)'));
      return;
    }
    const relay = [...spec.dropPrivileges, '/bin/bash', '--norc', '--noprofile', '-c', RELAY, 'relay', ...spec.command];
    const child = launcher.child;
    const io = launcher.io.slice(0, maxFd + 1);
    const now = () => performance.now();
    let phase: 'setup' | 'compile' | 'run' | 'exit' = 'setup';
    // The run's deadline is fixed when it starts: markers from the report channel
    // could be forged by the program, so none of them may extend it.
    const runMs = spec.runTimeoutMs + (spec.fetchCount > 0 ? spec.graceMs : 0);
    let phaseStart = now();
    let deadline = phaseStart + spec.setupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let killed = false;
    let settled = false;
    const x: Execution = {
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
      report: new ReportParser(spec.maxReportBytes, spec.fetchCount, {
        onStart: () => {
          x.started = true;
          if (spec.hasCompile) enter('compile', spec.compileTimeoutMs);
          else enter('run', runMs);
        },
        onCompiled: (rc) => {
          if (phase !== 'compile') return;
          x.compileSeconds = (now() - phaseStart) / 1000;
          x.compileStatus = rc;
          // The program does not exist yet, so this marker is the supervisor's own.
          enter(rc === 0 ? 'run' : 'exit', rc === 0 ? runMs : spec.graceMs);
          if (rc === 0) spec.onRunAfterCompile?.();
        },
        onRunEnd: (rc) => {
          if (phase !== 'run') return;
          // Latest marker wins: the real one comes after the program has exited, so an
          // early one forged by the program cannot shorten its time.
          x.runSeconds = (now() - phaseStart) / 1000;
          x.runStatus = rc;
        },
      }),
    };

    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(onDeadline, Math.max(0, deadline - now()));
    };
    const enter = (next: typeof phase, ms: number) => {
      phase = next;
      phaseStart = now();
      deadline = phaseStart + ms;
      arm();
    };
    let info = '';
    io[FD.info]!.on('data', (b: Buffer) => (info = (info + b.toString('latin1')).slice(0, 4096)));
    const initPid = () => Number(/"child-pid":\s*(\d+)/.exec(info)?.[1] ?? 0);
    const kill = () => {
      killed = true;
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      killInit(initPid());
      // Relays are in the group too, so 'close' follows; this is only a safety net.
      setTimeout(() => io.forEach((s) => s?.destroy()), 3000).unref();
    };
    function onDeadline() {
      if (now() < deadline) return arm(); // timers may fire a hair early
      const elapsed = (now() - phaseStart) / 1000;
      if (phase === 'compile') x.compileSeconds = elapsed;
      if (phase === 'run') x.runSeconds = elapsed;
      // A kill during the run is a time-limit verdict even if an end marker came (it may be forged).
      x.timedOut = phase === 'exit' ? null : phase;
      kill();
    }
    const onAbort = () => kill();
    try {
      launcher.start(relay, maxFd);
    } catch (err) {
      kill();
      reject(new Error(`cannot start the sandbox launcher: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) kill();

    const sink = (i: number, into: { push(b: Buffer): void }) => io[i]!.on('data', (b: Buffer) => into.push(b));
    sink(1, x.stdout);
    sink(2, x.stderr);
    sink(FD.report, x.report);
    sink(FD.compileOut, x.compileOut);
    sink(FD.compileErr, x.compileErr);
    spec.data.forEach((content, i) => {
      const w = io[FD.firstData + i]!;
      w.on('error', () => {}); // bwrap died before reading it: the exit status tells the story
      w.end(content);
      w.resume(); // the socket is duplex; its read side must drain to EOF for 'close'
    });
    io.forEach((s) => s?.on('error', () => {}));

    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (err !== null) reject(err);
      else if (signal.aborted) reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      else resolve(x);
    };
    child.on('error', (err) => {
      kill();
      finish(new Error(`cannot start the sandbox launcher: ${err.message}`));
    });
    child.on('close', (code) => {
      x.exitStatus = killed ? null : code;
      if (phase === 'run' && x.runSeconds === null) x.runSeconds = (now() - phaseStart) / 1000;
      // Within the fetch allowance, but past run_timeout: still a time-limit verdict.
      if (phase === 'run' && x.runSeconds !== null && x.runSeconds * 1000 > spec.runTimeoutMs) x.timedOut = 'run';
      if (!killed) return finish(null); // bwrap's monitor outlives pid 1, so the namespace is already gone
      const pid = initPid();
      killInit(pid); // the info may have arrived after the kill
      void namespaceGone(pid).then(() => finish(null));
    });
  });
}
