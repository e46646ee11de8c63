// One running zygote: a python started once in bubblewrap that serves one run
// at a time. Killing it (abort, a supervisor that misbehaved, a missed backstop)
// tears down its whole pid namespace, nested run namespaces included.

import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { killInit, namespaceGone } from '../reaper.ts';
import { ExitFrame, FrameReader, decodeResult, type Frame, type RunResult } from './protocol.ts';

/** How to start a zygote. */
export interface ZygoteLaunch {
  /** Full argv: [setpriv ...] bwrap ... -- python3 zygote.py */
  argv: string[];
  /** Contents of fds 4, 5, ... (bwrap --file sources). */
  data: Uint8Array[];
  /** Largest result frame accepted (output caps + fetched files + slack). */
  maxFrameBytes: number;
  startTimeoutMs: number;
}

const INFO_FD = 3;

function exitStatus(body: Buffer): number {
  return ExitFrame.parse(JSON.parse(body.toString('utf8'))).status;
}

/** A zygote process; `run` calls must not overlap. */
export class ZygoteProcess {
  readonly #child: ChildProcess;
  readonly #io: Array<Duplex | null>;
  readonly #frames: FrameReader;
  #info = '';
  #stderr = '';
  #dead: Error | null = null;
  /** Runs answered whose supervisor's X frame has not arrived yet. */
  #exitsOwed = 0;
  #pending: { onFrame: (f: Frame) => void; onDeath: (e: Error) => void } | null = null;
  /** Resolves when the zygote has said it is ready. */
  readonly ready: Promise<void>;
  #sent = 0;

  constructor(launch: ZygoteLaunch) {
    this.#frames = new FrameReader(launch.maxFrameBytes);
    const stdio = Array.from({ length: INFO_FD + 1 + launch.data.length }, () => 'pipe' as const);
    this.#child = spawn(launch.argv[0]!, launch.argv.slice(1), {
      stdio,
      detached: true,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    this.#io = this.#child.stdio as unknown as Array<Duplex | null>;
    this.#io.forEach((s) => s?.on('error', () => {}));
    launch.data.forEach((content, i) => {
      const w = this.#io[INFO_FD + 1 + i]!;
      w.end(content);
      w.resume();
    });
    this.#io[INFO_FD]!.on('data', (b: Buffer) => (this.#info = (this.#info + b.toString('latin1')).slice(0, 4096)));
    this.#io[2]!.on('data', (b: Buffer) => (this.#stderr = (this.#stderr + b.toString('utf8')).slice(-4096)));
    let hello: (() => void) | undefined;
    let failed: ((e: Error) => void) | undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      hello = resolve;
      failed = reject;
    });
    const timer = setTimeout(() => this.#die(new Error(`zygote did not start within ${launch.startTimeoutMs} ms`)), launch.startTimeoutMs);
    this.#pending = {
      onFrame: (f) => {
        clearTimeout(timer);
        this.#pending = null;
        if (f.kind === 'H') hello?.();
        else this.#die(new Error(`zygote sent ${f.kind} before it was ready`));
      },
      onDeath: (e) => {
        clearTimeout(timer);
        failed?.(e);
      },
    };
    this.ready.catch(() => {}); // observed by whoever awaits it; a dead zygote is also reported by run()
    this.#io[1]!.on('data', (b: Buffer) => {
      let frames: Frame[];
      try {
        frames = this.#frames.push(b);
      } catch (e) {
        return this.#die(e as Error);
      }
      for (const f of frames) {
        // A run is answered by its R frame; the X frame of its supervisor follows
        // later (before the next run's R), and only matters if that exit was not clean.
        if (f.kind === 'X' && this.#exitsOwed > 0) {
          this.#exitsOwed--;
          const status = exitStatus(f.body);
          if (status !== 0) return this.#die(new Error(`zygote run supervisor exited with status ${status}: ${this.#stderr.trim().slice(-2000)}`));
          continue;
        }
        if (this.#pending === null) return this.#die(new Error(`zygote sent an unexpected ${f.kind} frame`));
        this.#pending.onFrame(f);
      }
    });
    this.#child.on('error', (e) => this.#die(new Error(`cannot start the zygote: ${e.message}`)));
    this.#child.on('close', (code, sig) => this.#die(new Error(`zygote exited (${sig ?? code})${this.#stderr ? ': ' + this.#stderr.trim() : ''}`)));
  }

  /** False once the zygote has died or been killed. */
  get alive(): boolean {
    return this.#dead === null;
  }

  /**
   * Requests sent so far. The zygote counts the requests its supervisors took
   * the same way (a failed run kills the zygote, so the counts never part);
   * the parity picks the run cgroup (zygote.py).
   */
  get sent(): number {
    return this.#sent;
  }

  /** Sends one run and resolves with its result frame; rejects (after killing the zygote) on abort or when `backstopMs` passes. */
  run(request: Buffer, backstopMs: number, signal: AbortSignal): Promise<RunResult> {
    if (this.#dead !== null) return Promise.reject(this.#dead);
    if (this.#pending !== null) return Promise.reject(new Error('zygote is busy'));
    this.#sent++;
    return new Promise<RunResult>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#pending = null;
        fn();
      };
      // kill() settles through onDeath, once the namespace is empty.
      const fail = (e: Error) => void this.kill(e);
      const onAbort = () => fail(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(() => fail(new Error(`zygote gave no answer within ${backstopMs} ms`)), backstopMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#pending = {
        onFrame: (f) => {
          try {
            if (f.kind === 'R') {
              const result = decodeResult(f.body);
              this.#exitsOwed++;
              settle(() => resolve(result));
            } else if (f.kind === 'X') {
              fail(new Error(`zygote run supervisor exited with status ${exitStatus(f.body)} before answering: ${this.#stderr.trim().slice(-2000)}`));
            } else throw new Error(`zygote sent an unexpected ${f.kind} frame`);
          } catch (e) {
            fail(e as Error);
          }
        },
        onDeath: (e) => settle(() => reject(e)),
      };
      if (signal.aborted) return onAbort();
      this.#io[0]!.write(request);
    });
  }

  /** Kills the zygote and everything in its namespace; a pending run is rejected once the namespace is empty. */
  async kill(reason: Error = new Error('zygote stopped')): Promise<void> {
    if (this.#dead !== null) return;
    this.#dead = reason;
    const pending = this.#pending;
    this.#pending = null;
    const pid = Number(/"child-pid":\s*(\d+)/.exec(this.#info)?.[1] ?? 0);
    try {
      process.kill(-this.#child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    killInit(pid);
    await namespaceGone(pid);
    pending?.onDeath(reason);
  }

  /** Recent stderr of the zygote, for error messages. */
  get stderr(): string {
    return this.#stderr;
  }

  #die(e: Error): void {
    void this.kill(e);
  }
}
