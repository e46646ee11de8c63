// The python fast path: pre-started interpreters (zygotes) in bubblewrap that
// fork a fresh user/mount/pid/net/ipc/uts/cgroup namespace per run (see
// zygote.py for the process tree and why isolation matches a fresh
// bubblewrap per run). One zygote per execution slot (../slots): it runs as the
// slot's host uid and sits in the slot's memory cgroup for its whole life; each
// run's program moves itself into one of the slot's two run cgroups
// (../slots/cgroup.ts), alternating, while the previous run executes in the
// other, so only the program is charged to its budget. Runs
// never share a uid with a concurrent run. A zygote that is killed is replaced.
// A run's limits, files, tmpfs sizes and cgroup budgets are planned as a
// bubblewrap run's are (../plan/run-plan.ts).

import { fileURLToPath } from 'node:url';
import type { SelectiveRunner } from '../../../core/executor.ts';
import type { CommandResult, RunOutcome, RunSpec } from '../../../core/runner.ts';
import { SANDBOX_ENV, bwrapArgs, runCgroupProcsPath } from '../bubblewrap/argv.ts';
import { LANGUAGES } from '../languages/index.ts';
import type { CgroupStats, RunCgroupIndex, SlotCgroups } from '../slots/cgroup.ts';
import { cpuLimitReached as cpuLimitReachedBy, memoryLimitExceeded } from '../memory-verdict.ts';
import { STDIN_PATH, WORK_DIR } from '../plan/paths.ts';
import { HOSTS_FILE, groupFile, passwdFile, sourceStem, truncationNote } from '../plan/run-inputs.ts';
import { NATIVE_RUN_DEFAULTS, type NativeRunPlan, type NativeRunSettings, baseSandbox, planNativeRun } from '../plan/run-plan.ts';
import type { HostProbe } from '../bubblewrap/probe.ts';
import type { SeccompFilter } from '../seccomp/filter.ts';
import { hostLaunchPrefix } from '../slots/host-launch.ts';
import type { Slot, SlotPool } from '../slots/slot-pool.ts';
import { ZygoteProcess } from './process.ts';
import { STDIN_BLOB, encodeRun, type RunResult, type ZygoteRunMeta } from './protocol.ts';

/** Tunables (defaults match the bubblewrap runner's). */
export interface ZygoteRunnerOptions {
  /** The execution slots (shared with the bubblewrap runner): one zygote each. */
  slots: SlotPool;
  /** The slots' cgroups (the bubblewrap runner's), or null: each zygote lives in its slot's. */
  cgroups: SlotCgroups | null;
  /** The bubblewrap runner's host probe (launch mode, layout, python path). */
  host: HostProbe;
  /** The seccomp filter each run's program loads before its code runs (the bubblewrap runner's). */
  seccomp: SeccompFilter;
  tmpMb?: number;
  shmMb?: number;
  processes?: number;
  maxFetchBytes?: number;
  /** Sandbox uid inside the namespaces. */
  sandboxUid?: number;
  /** Called when a zygote dies unexpectedly (for logs). */
  onFailure?: (message: string) => void;
}

const MiB = 1024 * 1024;
const SCRIPT_DIR = fileURLToPath(new URL('./', import.meta.url));
const SETUP_TIMEOUT_MS = 10_000;
/** Where the zygote finds the seccomp program (written from an fd by bwrap --file). */
const SECCOMP_PATH = '/run/seccomp.bpf';
/** Extra time past run_timeout + setup before the host gives up on a zygote's answer. */
const BACKSTOP_SLACK_MS = 10_000;

/** Runs `python` programs through a pool of zygotes. */
export class ZygoteRunner implements SelectiveRunner {
  readonly name = 'python-zygote';
  readonly #opts: Required<Omit<ZygoteRunnerOptions, 'onFailure'>> & Pick<ZygoteRunnerOptions, 'onFailure'>;
  /** The plan's tunables (python compiles nothing, so the compile budget is the default and unused). */
  readonly #settings: NativeRunSettings;
  /** The zygote of each slot (by index), started or starting. */
  readonly #zygotes: Array<ZygoteProcess | undefined> = [];
  #closed = false;

  constructor(options: ZygoteRunnerOptions) {
    this.#opts = {
      tmpMb: NATIVE_RUN_DEFAULTS.tmpMb,
      shmMb: NATIVE_RUN_DEFAULTS.shmMb,
      processes: NATIVE_RUN_DEFAULTS.processes,
      maxFetchBytes: 64 * MiB,
      sandboxUid: NATIVE_RUN_DEFAULTS.sandboxUid,
      ...options,
    };
    const { tmpMb, shmMb, processes, sandboxUid } = this.#opts;
    this.#settings = { tmpMb, shmMb, processes, sandboxUid, compileMemoryMb: NATIVE_RUN_DEFAULTS.compileMemoryMb };
    // A cold slot left idle: its zygote goes (the slot's next run starts one).
    options.slots.onIdle((slot) => {
      const proc = this.#zygotes[slot.index];
      this.#zygotes[slot.index] = undefined;
      void proc?.kill();
    });
  }

  languages(): ReadonlyArray<string> {
    return this.#opts.host.tools.python === undefined ? [] : ['python'];
  }

  canRun(spec: RunSpec): boolean {
    return !this.#closed && spec.language === 'python' && this.#opts.host.tools.python !== undefined;
  }

  /**
   * Starts the zygotes of the pool's warm slots; resolves when every one is
   * ready (rejects if one cannot start). Other slots start theirs on their
   * first run and stop it once idle (SlotPool.onIdle).
   */
  async warm(): Promise<void> {
    await Promise.all(this.#opts.slots.warmSlots().map((slot) => this.#zygoteFor(slot)));
  }

  /** Zygotes alive or starting (one per slot in use). */
  get zygotes(): number {
    return this.#zygotes.filter((p) => p?.alive === true).length;
  }

  /** Stops every zygote; call once runs have finished. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#zygotes.splice(0).map((p) => p?.kill()));
  }

  async run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome> {
    signal.throwIfAborted();
    const { plan, meta, blobs } = this.#request(spec);
    const slot = await this.#opts.slots.acquire(signal);
    try {
      const proc = await this.#zygoteFor(slot);
      // The zygote alternates its two run cgroups by request count (zygote.py serve()).
      const runCgroup: RunCgroupIndex = proc.sent % 2 === 0 ? 0 : 1;
      const cgroup = this.#opts.cgroups?.prepare(slot.index, plan.cgroup.slotBytes, plan.cgroup.runBytes, plan.cgroup.maxTasks, runCgroup) ?? null;
      const backstop = SETUP_TIMEOUT_MS + spec.runTimeoutMs + BACKSTOP_SLACK_MS;
      let result: RunResult;
      try {
        result = await proc.run(encodeRun(meta, blobs), backstop, signal);
        const expected = cgroup === null ? null : runCgroup;
        if (result.head.run_cgroup !== expected) {
          const e = new Error(`python zygote ran its program in run cgroup ${result.head.run_cgroup}, expected ${expected}`);
          await proc.kill(e);
          throw e;
        }
      } catch (e) {
        if (!signal.aborted) this.#opts.onFailure?.((e as Error).message);
        this.#replace(slot);
        throw e;
      }
      return this.#outcome(spec, meta, result, cgroup?.stats() ?? null);
    } finally {
      slot.release(); // the run's namespaces are empty once its result (or the zygote's death) is in
    }
  }

  #request(spec: RunSpec): { plan: NativeRunPlan; meta: ZygoteRunMeta; blobs: Uint8Array[] } {
    const plan = planNativeRun(spec, {
      language: LANGUAGES.python!,
      tools: this.#opts.host.tools,
      settings: this.#settings,
      stem: sourceStem(),
      accountFiles: false, // the zygote's sandbox has them from its start
    });
    const l = plan.run.limits;
    const meta: ZygoteRunMeta = {
      source: plan.source,
      limits: { cpu_s: l.cpuSeconds, as_mb: l.addressSpaceMb, stack_mb: l.stackMb, file_bytes: l.fileBytes, open_files: l.openFiles, processes: l.processes },
      tmp_bytes: plan.tmpfs.tmp.bytes,
      shm_bytes: plan.tmpfs.shm.bytes,
      max_output: spec.maxOutputBytes,
      max_fetch_bytes: this.#opts.maxFetchBytes,
      setup_timeout_ms: SETUP_TIMEOUT_MS,
      run_timeout_ms: spec.runTimeoutMs,
      fetch: plan.fetch.map(([, p]) => p),
      blobs: plan.files.map((f) => [blobName(f.dest), f.content.length]),
    };
    return { plan, meta, blobs: plan.files.map((f) => f.content) };
  }

  #outcome(spec: RunSpec, meta: ZygoteRunMeta, r: RunResult, cgroup: CgroupStats | null): RunOutcome {
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
        returnCode,
        stderr,
        markers: LANGUAGES.python!.memoryMarkers,
        killedByUs: wallTimeout,
        cpuLimitReached,
        memoryLimitMb: spec.memoryLimitMb,
        cgroup,
      }),
      output_truncated: head.stdout_seen > spec.maxOutputBytes || head.stderr_seen > spec.maxOutputBytes,
    };
    if (rep.files_dropped === true) notes.push('fetch_files: total size over the cap, some files were dropped');
    return { compile_result: null, run_result, files: wallTimeout ? {} : (rep.files ?? {}), notes };
  }

  /** The slot's live zygote, started if there is none. */
  async #zygoteFor(slot: Slot): Promise<ZygoteProcess> {
    // Decided synchronously, so a replacement and the slot's next run never start two.
    let proc = this.#zygotes[slot.index];
    if (proc === undefined || !proc.alive) {
      proc = this.#spawn(slot);
      this.#zygotes[slot.index] = proc;
    }
    await proc.ready;
    return proc;
  }

  /** Replaces a slot's lost zygote in the background, so the next run finds it warm. */
  #replace(slot: Slot): void {
    if (this.#closed) return;
    this.#zygoteFor(slot).catch((e: Error) => this.#opts.onFailure?.(e.message));
  }

  #spawn(slot: Slot): ZygoteProcess {
    const { host, sandboxUid: uid, cgroups } = this.#opts;
    const runs = baseSandbox(this.#settings);
    const data = [Buffer.from(passwdFile(uid)), Buffer.from(groupFile(uid)), this.#opts.seccomp.bpf, Buffer.from(HOSTS_FILE)];
    const args = bwrapArgs({
      layout: host.layout,
      uid,
      env: { ...SANDBOX_ENV },
      tmpBytes: 16 * MiB,
      shmBytes: MiB,
      infoFd: 3,
      files: [
        { fd: 4, dest: '/etc/passwd', perms: '0644' },
        { fd: 5, dest: '/etc/group', perms: '0644' },
        { fd: 6, dest: SECCOMP_PATH, perms: '0444' },
        { fd: 7, dest: '/etc/hosts', perms: '0444' },
      ],
      roBinds: [{ src: SCRIPT_DIR, dest: '/run/zygote' }],
      ...(cgroups !== null && { runCgroupProcs: [cgroups.runProcs(slot.index, 0), cgroups.runProcs(slot.index, 1)] }),
      nestedUserns: true,
      command: [
        host.tools.python ?? '/usr/bin/python3',
        '/run/zygote/zygote.py',
        String(runs.tmpfs.tmp.bytes),
        String(runs.tmpfs.shm.bytes),
        SECCOMP_PATH,
        JSON.stringify({
          tmp_inodes: runs.tmpfs.tmp.inodes,
          shm_inodes: runs.tmpfs.shm.inodes,
          ipc: runs.ipcSysctls,
          run_cgroups: cgroups === null ? null : [runCgroupProcsPath(0), runCgroupProcsPath(1)],
        }),
      ],
    });
    // Joined once: every run of this zygote is born in the slot's cgroup (its program then moves into the run cgroup).
    const prefix = host.launcher === null ? [] : hostLaunchPrefix(host.launcher, { uid: slot.uid, cgroupProcs: cgroups?.procs(slot.index) ?? [] });
    return new ZygoteProcess({
      argv: [...prefix, host.bwrap, ...args],
      data,
      maxFrameBytes: 2 * MAX_FRAME_SLACK + 4 * this.#opts.maxFetchBytes,
      startTimeoutMs: 20_000,
    });
  }
}

/** A planned file's name in a zygote request: the stdin blob, or its path in the work dir. */
function blobName(dest: string): string {
  return dest === STDIN_PATH ? STDIN_BLOB : dest.slice(WORK_DIR.length + 1);
}

// Output caps are per run (up to the service's MAX_OUTPUT_BYTES); frames carry both streams plus JSON.
const MAX_FRAME_SLACK = 256 * MiB;
