// The python fast path: pre-started interpreters (zygotes) in bubblewrap that
// fork a fresh user/mount/pid/net/ipc/uts/cgroup namespace per run (see
// zygote/zygote.py for the process tree and why isolation matches a fresh
// bubblewrap per run). One zygote serves one run at a time; the pool keeps as
// many as runs may execute at once, and replaces any that is killed.

import { fileURLToPath } from 'node:url';
import type { SelectiveRunner } from '../core/executor.ts';
import type { CommandResult, RunOutcome, RunSpec } from '../core/runner.ts';
import { SANDBOX_ENV, bwrapArgs } from './bwrap/argv.ts';
import { LANGUAGES } from './bwrap/languages.ts';
import { BASE_LIMITS, cpuSecondsFor } from './bwrap/limits.ts';
import { cpuLimitReached as cpuLimitReachedBy, memoryLimitExceeded } from './bwrap/memory.ts';
import { safeRelativePath } from './bwrap/paths.ts';
import { checkedInputs, groupFile, passwdFile, sourceFileName, truncationNote } from './bwrap/run-inputs.ts';
import type { HostProbe } from './bwrap/probe.ts';
import type { SeccompFilter } from './seccomp/filter.ts';
import { ZygoteProcess } from './zygote/process.ts';
import { STDIN_BLOB, encodeRun, type RunResult, type ZygoteRunMeta } from './zygote/protocol.ts';

/** Tunables (defaults match the bubblewrap runner's). */
export interface ZygoteRunnerOptions {
  /** Zygotes kept warm: as many as runs may execute at once. */
  size: number;
  /** The bubblewrap runner's host probe (launch mode, layout, python path). */
  host: HostProbe;
  /** The seccomp filter each run's program loads before its code runs (the bubblewrap runner's). */
  seccomp: SeccompFilter;
  tmpMb?: number;
  shmMb?: number;
  processes?: number;
  maxFetchBytes?: number;
  sandboxUid?: number;
  /** Called when a zygote dies unexpectedly (for logs). */
  onFailure?: (message: string) => void;
}

const MiB = 1024 * 1024;
const SCRIPT_DIR = fileURLToPath(new URL('./zygote/', import.meta.url));
const SETUP_TIMEOUT_MS = 10_000;
/** Where the zygote finds the seccomp program (written from an fd by bwrap --file). */
const SECCOMP_PATH = '/run/seccomp.bpf';
/** Extra time past run_timeout + setup before the host gives up on a zygote's answer. */
const BACKSTOP_SLACK_MS = 10_000;

/** Runs `python` programs through a pool of zygotes. */
export class ZygoteRunner implements SelectiveRunner {
  readonly name = 'python-zygote';
  readonly #opts: Required<Omit<ZygoteRunnerOptions, 'onFailure'>> & Pick<ZygoteRunnerOptions, 'onFailure'>;
  readonly #idle: ZygoteProcess[] = [];
  #closed = false;

  constructor(options: ZygoteRunnerOptions) {
    this.#opts = {
      tmpMb: 256, shmMb: 64, processes: BASE_LIMITS.processes, maxFetchBytes: 64 * MiB, sandboxUid: 65534,
      ...options,
    };
  }

  languages(): ReadonlyArray<string> {
    return this.#opts.host.tools.python === undefined ? [] : ['python'];
  }

  canRun(spec: RunSpec): boolean {
    return !this.#closed && spec.language === 'python' && this.#opts.host.tools.python !== undefined;
  }

  /** Starts the pool; resolves when every zygote is ready (rejects if one cannot start). */
  async warm(): Promise<void> {
    const procs = Array.from({ length: this.#opts.size }, () => this.#spawn());
    await Promise.all(procs.map((p) => p.ready));
    this.#idle.push(...procs);
  }

  /** Stops every idle zygote (runs in flight finish, then their zygotes stop). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#idle.splice(0).map((p) => p.kill()));
  }

  async run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome> {
    signal.throwIfAborted();
    const { meta, blobs } = this.#request(spec);
    const proc = await this.#acquire();
    const backstop = SETUP_TIMEOUT_MS + spec.runTimeoutMs + BACKSTOP_SLACK_MS;
    let result;
    try {
      result = await proc.run(encodeRun(meta, blobs), backstop, signal);
    } catch (e) {
      if (!signal.aborted) this.#opts.onFailure?.((e as Error).message);
      this.#replace();
      throw e;
    }
    this.#release(proc);
    return this.#outcome(spec, meta, result);
  }

  #request(spec: RunSpec): { meta: ZygoteRunMeta; blobs: Uint8Array[] } {
    const blobs: Uint8Array[] = [];
    const names: Array<[string, number]> = [];
    const add = (name: string, data: Uint8Array) => {
      names.push([name, data.length]);
      blobs.push(data);
    };
    if (spec.stdin !== null) add(STDIN_BLOB, Buffer.from(spec.stdin, 'utf8'));
    for (const [path, content] of checkedInputs(spec.files)) add(path, content);
    const source = sourceFileName('py');
    add(source, Buffer.from(spec.code, 'utf8')); // last, so it wins a name clash
    const inputBytes = blobs.reduce((n, b) => n + b.length, 0);
    const python = LANGUAGES.python!;
    const meta: ZygoteRunMeta = {
      source,
      limits: {
        cpu_s: cpuSecondsFor(spec.runTimeoutMs), as_mb: python.addressSpaceMb(spec.memoryLimitMb), stack_mb: BASE_LIMITS.stackMb,
        file_bytes: BASE_LIMITS.fileBytes, open_files: BASE_LIMITS.openFiles, processes: this.#opts.processes,
      },
      tmp_bytes: (this.#opts.tmpMb + Math.ceil(inputBytes / MiB)) * MiB,
      shm_bytes: this.#opts.shmMb * MiB,
      max_output: spec.maxOutputBytes,
      max_fetch_bytes: this.#opts.maxFetchBytes,
      setup_timeout_ms: SETUP_TIMEOUT_MS,
      run_timeout_ms: spec.runTimeoutMs,
      fetch: spec.fetchFiles.map(safeRelativePath),
      blobs: names,
    };
    return { meta, blobs };
  }

  #outcome(spec: RunSpec, meta: ZygoteRunMeta, r: RunResult): RunOutcome {
    const { head } = r;
    if (!head.started || head.report.error !== undefined) {
      if (head.timed_out === 'setup') throw new Error('python sandbox timed out during setup');
      throw new Error(head.report.error ?? `python sandbox failed to start (status ${head.init_status})`);
    }
    const notes: string[] = [];
    const wallTimeout = head.timed_out === 'run';
    const rep = head.report;
    const returnCode = wallTimeout ? null : rep.signal !== undefined ? -rep.signal : (rep.exit ?? null);
    const cpu = rep.cpu_s ?? 0;
    const cpuLimitReached = cpuLimitReachedBy(returnCode, cpu, meta.limits.cpu_s);
    if (cpuLimitReached) notes.push(`run stopped at the CPU-time limit (${meta.limits.cpu_s} s)`);
    const text = (buf: Buffer, seen: number, name: string) => {
      if (seen > spec.maxOutputBytes) notes.push(truncationNote(name, spec.maxOutputBytes, seen));
      return buf.toString('utf8');
    };
    const stdout = text(r.stdout, head.stdout_seen, 'stdout');
    const stderr = text(r.stderr, head.stderr_seen, 'stderr');
    const run_result: CommandResult = {
      status: wallTimeout || cpuLimitReached ? 'TimeLimitExceeded' : 'Finished',
      execution_time: wallTimeout ? head.wall_s : (rep.run_s ?? head.wall_s),
      return_code: returnCode,
      stdout,
      stderr,
      memory_limit_exceeded: memoryLimitExceeded({
        returnCode, stderr, markers: LANGUAGES.python!.memoryMarkers, killedByUs: wallTimeout,
        cpuLimitReached, memoryLimitMb: spec.memoryLimitMb, cgroup: null,
      }),
      output_truncated: head.stdout_seen > spec.maxOutputBytes || head.stderr_seen > spec.maxOutputBytes,
    };
    if (rep.files_dropped === true) notes.push('fetch_files: total size over the cap, some files were dropped');
    return { compile_result: null, run_result, files: wallTimeout ? {} : (rep.files ?? {}), notes };
  }

  async #acquire(): Promise<ZygoteProcess> {
    for (let p = this.#idle.pop(); p !== undefined; p = this.#idle.pop()) if (p.alive) return p;
    const p = this.#spawn();
    await p.ready;
    return p;
  }

  #release(p: ZygoteProcess): void {
    if (this.#closed || !p.alive) void p.kill();
    else this.#idle.push(p);
  }

  /** Keeps the pool at size after a zygote was lost (started in the background). */
  #replace(): void {
    if (this.#closed || this.#idle.length >= this.#opts.size) return;
    const p = this.#spawn();
    p.ready.then(() => this.#release(p), (e: Error) => this.#opts.onFailure?.(e.message));
  }

  #spawn(): ZygoteProcess {
    const { host, sandboxUid: uid } = this.#opts;
    const data = [Buffer.from(passwdFile(uid)), Buffer.from(groupFile(uid)), this.#opts.seccomp.bpf];
    const args = bwrapArgs({
      layout: host.layout, uid, env: { ...SANDBOX_ENV }, tmpBytes: 16 * MiB, shmBytes: MiB, infoFd: 3,
      files: [{ fd: 4, dest: '/etc/passwd', perms: '0644' }, { fd: 5, dest: '/etc/group', perms: '0644' }, { fd: 6, dest: SECCOMP_PATH, perms: '0444' }],
      roBinds: [{ src: SCRIPT_DIR, dest: '/run/zygote' }],
      nestedUserns: true,
      command: [host.tools.python ?? '/usr/bin/python3', '/run/zygote/zygote.py', String(this.#opts.tmpMb * MiB), String(this.#opts.shmMb * MiB), SECCOMP_PATH],
    });
    return new ZygoteProcess({
      argv: [...host.prefix, host.bwrap, ...args],
      data,
      maxFrameBytes: 2 * MAX_FRAME_SLACK + 4 * this.#opts.maxFetchBytes,
      startTimeoutMs: 20_000,
    });
  }
}

// Output caps are per run (up to the service's MAX_OUTPUT_BYTES); frames carry both streams plus JSON.
const MAX_FRAME_SLACK = 256 * MiB;
