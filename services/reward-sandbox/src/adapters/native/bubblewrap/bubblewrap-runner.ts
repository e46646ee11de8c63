// Runner for native languages (every entry of ../languages/) in a fresh bubblewrap sandbox per run. Here:
// argv.ts (namespaces and mounts), supervisor.ts (what runs inside), execute.ts + ../reaper.ts (process
// lifecycle, deadlines, kills), outcome.ts (SandboxFusion result shape), probe.ts (start-up probing). Shared
// with the zygote: ../plan/run-plan.ts (every limit and memory budget of a run), ../memory-verdict.ts, the
// seccomp filter every sandbox loads (built once in ../seccomp), and ../slots, which gives each run a host
// uid and cgroups of its own (its slot's: ../slots/cgroup.ts) and the root-side setup (IPC limits,
// inode-capped tmpfs) before bwrap.
// Runs share no state: each gets its own namespaces, tmpfs, host uid and cgroup.

import { fileURLToPath } from 'node:url';
import type { RunOutcome, RunSpec, Runner } from '../../../core/runner.ts';
import { RUN_CGROUP_PROCS, SANDBOX_ENV, bwrapArgs } from './argv.ts';
import { type CgroupRun, SlotCgroups } from '../slots/cgroup.ts';
import { execute } from './execute.ts';
import { LauncherPool } from './launcher.ts';
import { LANGUAGES } from '../languages/index.ts';
import type { LanguageSpec } from '../languages/types.ts';
import { ulimitScript } from '../plan/limits.ts';
import { NATIVE_RUN_DEFAULTS, type NativeRunPlan, type NativeRunSettings, planNativeRun } from '../plan/run-plan.ts';
import { sourceStem } from '../plan/run-inputs.ts';
import { buildOutcome } from './outcome.ts';
import { probeHost, type HostProbe } from './probe.ts';
import { FD, supervisorScript } from './supervisor.ts';
import { SUPERVISOR_SHELL, prepareSupervisorShell, type SupervisorShell } from './supervisor-shell.ts';
import { SeccompUnavailableError, buildSeccompFilter, type SeccompFilter } from '../seccomp/filter.ts';
import { SHM_SOURCE, TMP_SOURCE, hostLaunchPrefix, prepareMountPoints } from '../slots/host-launch.ts';
import { DEFAULT_UID_BASE, SlotPool, type Slot } from '../slots/slot-pool.ts';
import { UidRangeError, checkUidRange } from '../slots/uid-range.ts';

/** Tunables; the defaults suit a reward sandbox. */
export interface BwrapRunnerOptions {
  /** Node binary for `nodejs`/`typescript`/`jest` (bound read-only into the sandbox); omit to disable them. */
  nodePath?: string;
  /**
   * The npm package dir (package.json, configs, node_modules) bound read-only
   * for node runs; `jest` needs it. Default: this service's runtime/node-packages
   * (installed by `make deps`); null for none.
   */
  nodePackagesPath?: string | null;
  /** Python interpreter (default /usr/bin/python3: system site-packages, fast start). */
  pythonPath?: string;
  bwrapPath?: string;
  /** Size cap of the writable /tmp (work dir + temp files), MiB; grows to fit large inputs. Default 256. */
  tmpMb?: number;
  /** Size cap of /dev/shm, MiB. Default 64. */
  shmMb?: number;
  /** RLIMIT_AS floor for compilers, MiB (g++ needs more than small run limits). Default 2048. */
  compileMemoryMb?: number;
  /** RLIMIT_NPROC per sandbox. Default 64. */
  processes?: number;
  /** Cap on fetched files (base64 total), bytes. Default 64 MiB. */
  maxFetchBytes?: number;
  /** Make a memory/pids cgroup per slot when the host allows it (the zygote runner's runs live in them). Default true. */
  cgroups?: boolean;
  /**
   * Run bubblewrap sandboxes in their slot's cgroup. Each slot keeps a spare
   * launcher that joined the cgroup while the slot was idle (launcher.ts),
   * so the v1 move (an RCU grace period: +8-26 ms p50 and ~1 s stalls in ~4% of
   * runs when done per run) is off the critical path. Default true.
   */
  joinCgroups?: boolean;
  /**
   * Execution slots: each run holds one, and runs as its host uid in its cgroup
   * (share the pool with the zygote runner). Default: 4 slots from DEFAULT_UID_BASE.
   */
  slots?: SlotPool;
  /** Sandbox uid/gid inside the namespace. Default 65534. */
  sandboxUid?: number;
  /** When root and unprivileged user namespaces are blocked, run bwrap as root anyway (weaker; see probe.ts). Default false. */
  allowRootSandbox?: boolean;
  /** libseccomp to compile the seccomp filter with. Default 'libseccomp.so.2'. */
  seccompLibrary?: string;
}

const MiB = 1024 * 1024;
/** The npm packages node runs see (services/reward-sandbox/runtime/node-packages, `make deps`). */
const DEFAULT_NODE_PACKAGES = fileURLToPath(new URL('../../../../runtime/node-packages', import.meta.url));

/** Runs native-language programs in per-run bubblewrap sandboxes. */
export class BwrapRunner implements Runner {
  readonly name = 'bwrap';
  /** What the start-up probe found (launch mode, missing pieces), for logs. */
  readonly host: HostProbe & { cgroups: boolean; privateMounts: boolean };
  /** The slots runs take (shared with the zygote runner). */
  readonly slots: SlotPool;
  /** The slots' cgroups, or null when this host gives none (then rlimits, tmpfs caps and IPC limits bound a run). */
  readonly cgroups: SlotCgroups | null;
  /**
   * The seccomp filter every sandbox loads (also the zygote's); null when it
   * could not be built, and then this runner offers no languages (fail closed).
   */
  readonly seccomp: SeccompFilter | null;
  #opts: { pythonPath: string; maxFetchBytes: number; cgroups: boolean };
  #settings: NativeRunSettings;
  #joinCgroups: boolean;
  #languages: string[];
  #shell: SupervisorShell | null;
  #launchers: LauncherPool;

  constructor(options: BwrapRunnerOptions = {}) {
    this.#opts = {
      pythonPath: options.pythonPath ?? '/usr/bin/python3',
      maxFetchBytes: options.maxFetchBytes ?? 64 * MiB,
      cgroups: options.cgroups ?? true,
    };
    this.#settings = {
      tmpMb: options.tmpMb ?? NATIVE_RUN_DEFAULTS.tmpMb,
      shmMb: options.shmMb ?? NATIVE_RUN_DEFAULTS.shmMb,
      compileMemoryMb: options.compileMemoryMb ?? NATIVE_RUN_DEFAULTS.compileMemoryMb,
      processes: options.processes ?? NATIVE_RUN_DEFAULTS.processes,
      sandboxUid: options.sandboxUid ?? NATIVE_RUN_DEFAULTS.sandboxUid,
    };
    this.slots = options.slots ?? new SlotPool({ size: 4, uidBase: DEFAULT_UID_BASE });
    this.#joinCgroups = options.joinCgroups ?? true;
    const { seccomp, problem } = buildFilter(this.#opts.pythonPath, options.seccompLibrary);
    this.seccomp = seccomp;
    const shell = prepareShell();
    this.#shell = shell.shell;
    const uids = checkUids(this.slots);
    const nodePackagesPath = options.nodePackagesPath === undefined ? DEFAULT_NODE_PACKAGES : (options.nodePackagesPath ?? undefined);
    const probe = probeHost({
      ...options,
      nodePackagesPath,
      pythonPath: this.#opts.pythonPath,
      probeUid: this.slots.uidBase,
      sandboxUid: this.#settings.sandboxUid,
      ...(seccomp !== null && { seccomp: seccomp.bpf }),
    });
    this.cgroups = this.#opts.cgroups ? SlotCgroups.probe(this.slots.all()) : null;
    const l = probe.launcher;
    const privateMounts = l !== null && l.unshare !== '' && l.mount !== '' && prepareMountPoints();
    const cgroupProblem =
      this.cgroups === null
        ? [
            `no memory cgroup${this.#opts.cgroups ? ' (this host gives none)' : ' (SANDBOX_CGROUPS=false)'}: memfd, forked processes and kernel memory of a run are not capped as a whole`,
          ]
        : [];
    this.host = {
      ...probe,
      problems: [...probe.problems, ...problem, ...shell.problem, ...uids, ...cgroupProblem],
      cgroups: this.cgroups !== null,
      privateMounts,
    };
    // Without the execute-only shell the program could rewrite its supervisor's report; without a
    // free uid range it could share one with an account: fail closed.
    const usable = seccomp !== null && shell.shell !== null && uids.length === 0;
    this.#languages = usable
      ? Object.entries(LANGUAGES)
          .filter(([, l]) => l.available(probe.tools))
          .map(([n]) => n)
      : [];
    const cgroups = this.#joinCgroups ? this.cgroups : null;
    this.#launchers = new LauncherPool((slot) => cgroups?.procs(slot) ?? []);
    // Spares for the warm slots now; the others get theirs after their first run, and lose them once idle.
    if (this.#languages.length > 0) for (const s of this.slots.warmSlots()) this.#launchers.refill(s.index);
    this.slots.onIdle((slot) => this.#launchers.retire(slot.index));
  }

  languages(): ReadonlyArray<string> {
    return this.#languages;
  }

  /** Removes the slots' cgroups (call at shutdown, after runs have finished). */
  close(): void {
    this.#launchers.close(); // spare launchers sit in the cgroups
    this.cgroups?.close();
    this.#shell?.remove();
    this.#shell = null;
  }

  async run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome> {
    signal.throwIfAborted();
    const slot = await this.slots.acquire(signal);
    try {
      return await this.#runInSlot(spec, slot, signal);
    } finally {
      // The slot's next launcher joins its cgroup while the slot is idle (or while the next run is prepared).
      if (this.#languages.length > 0) this.#launchers.refill(slot.index);
      slot.release(); // every process of the run is gone by now (execute settles after the namespace is empty)
    }
  }

  async #runInSlot(spec: RunSpec, slot: Slot, signal: AbortSignal): Promise<RunOutcome> {
    const { lang, seccomp, shell } = this.#toolsFor(spec.language);
    const plan = planNativeRun(spec, { language: lang, tools: this.host.tools, settings: this.#settings, stem: sourceStem(), accountFiles: true });
    // With joinCgroups the launcher (so bwrap and the supervisor) is in the slot's cgroups; the program joins its run cgroup itself.
    const runProcs = this.#joinCgroups ? (this.cgroups?.runProcs(slot.index) ?? null) : null;
    const cgroup = runProcs === null ? null : (this.cgroups?.prepare(slot.index, plan.cgroup.slotBytes, plan.cgroup.runBytes, plan.cgroup.maxTasks) ?? null);
    // Data fds, in order: the seccomp filter, then the plan's files.
    const data = [seccomp.bpf, ...plan.files.map((f) => f.content)];
    const x = await execute(
      {
        // The slot's spare launcher, already in its cgroups (a fresh one, joining now, if the run needs more data fds).
        launcher: this.#launchers.take(slot.index, data.length),
        dropPrivileges: this.#dropPrivileges(plan, slot),
        command: [this.host.bwrap, ...this.#bwrapArgs(plan, shell, runProcs)],
        data,
        hasCompile: plan.compile !== null,
        ...(cgroup && { onRunAfterCompile: () => programBudget(cgroup, plan) }),
        setupTimeoutMs: 20_000,
        compileTimeoutMs: spec.compileTimeoutMs,
        runTimeoutMs: spec.runTimeoutMs,
        graceMs: 1_000,
        maxOutputBytes: spec.maxOutputBytes,
        maxReportBytes: this.#opts.maxFetchBytes + 64 * 1024,
        fetchCount: plan.fetch.length,
      },
      signal,
    );
    if (!x.started) {
      const why = x.timedOut === 'setup' ? 'timed out during setup' : `exited with status ${x.exitStatus}`;
      throw new Error(`sandbox failed to start (${why}): ${x.stderr.text().trim().slice(0, 2000)}`);
    }
    return buildOutcome(x, {
      hasCompile: plan.compile !== null,
      memoryLimitMb: spec.memoryLimitMb,
      compileMemoryMb: this.#settings.compileMemoryMb,
      runCpuSeconds: plan.run.limits.cpuSeconds,
      runMarkers: lang.memoryMarkers,
      fetchFiles: plan.fetch.map(([f]) => f),
      cgroup: cgroup?.stats() ?? null,
    });
  }

  /** The language and what every sandbox needs, or why this host cannot run it. */
  #toolsFor(language: string): { lang: LanguageSpec; seccomp: SeccompFilter; shell: SupervisorShell } {
    const lang = LANGUAGES[language];
    const seccomp = this.seccomp;
    const shell = this.#shell;
    if (lang === undefined || seccomp === null || shell === null || !this.#languages.includes(language)) {
      const why = this.host.problems.length > 0 ? ` (${this.host.problems.join('; ')})` : '';
      throw new Error(`bwrap runner cannot run ${language} on this host${why}`);
    }
    return { lang, seccomp, shell };
  }

  /** The bwrap command line of a planned run: the sandbox, its files (fds after the filter's) and the supervisor. */
  #bwrapArgs(plan: NativeRunPlan, shell: SupervisorShell, runProcs: string | null): string[] {
    const step = (s: NativeRunPlan['run']) => ({ ...s, limits: ulimitScript(s.limits) });
    const script = supervisorScript({
      ...(plan.compile && { compile: step(plan.compile) }),
      run: step(plan.run),
      stdinPath: plan.stdinPath,
      fetch: plan.fetch.map(([, p]) => p),
      ...(runProcs !== null && { joinCgroup: RUN_CGROUP_PROCS }),
    });
    return bwrapArgs({
      layout: this.host.layout,
      uid: this.#settings.sandboxUid,
      env: { ...SANDBOX_ENV },
      tmpBytes: plan.tmpfs.tmp.bytes,
      shmBytes: plan.tmpfs.shm.bytes,
      files: plan.files.map((f, i) => ({ fd: FD.firstData + 1 + i, dest: f.dest, perms: f.perms })),
      infoFd: FD.info,
      seccompFd: FD.firstData,
      ...(this.host.privateMounts && { tmpfsSources: { tmp: TMP_SOURCE, shm: SHM_SOURCE }, ipcFromLauncher: true }),
      roBinds: [{ src: shell.hostPath, dest: SUPERVISOR_SHELL }],
      ...(runProcs !== null && { runCgroupProcs: [runProcs] }),
      command: [SUPERVISOR_SHELL, '--norc', '--noprofile', '-c', script],
    });
  }

  /** Root's part before bwrap: drop to the slot's uid, with the run's IPC limits and capped tmpfs when mounts are private. */
  #dropPrivileges(plan: NativeRunPlan, slot: Slot): string[] {
    const launcher = this.host.launcher;
    if (launcher === null) return [];
    return hostLaunchPrefix(launcher, {
      uid: slot.uid,
      cgroupProcs: [], // the launcher joined them
      ...(this.host.privateMounts && { ipcSysctls: plan.ipcSysctls, mounts: plan.tmpfs }),
    });
  }
}

/** After a compile step the program gets its own budget (the compiler's higher one stays if cache cannot be reclaimed). */
function programBudget(cgroup: CgroupRun, plan: NativeRunPlan): void {
  cgroup.tighten(plan.cgroup.runSlotBytes);
  cgroup.resetPeak();
}

/** Why the slots' uid range cannot be used (empty when it can). */
function checkUids(slots: SlotPool): string[] {
  try {
    checkUidRange(slots.uidBase, slots.size);
    return [];
  } catch (e) {
    if (!(e instanceof UidRangeError)) throw e;
    return [`${e.code}: ${e.message}; sandboxes do not run`];
  }
}

/** The filter, or why there is none (never throws for a missing library: the runner then offers nothing). */
function buildFilter(pythonPath: string, library: string | undefined): { seccomp: SeccompFilter | null; problem: string[] } {
  try {
    return { seccomp: buildSeccompFilter({ pythonPath, ...(library !== undefined && { library }) }), problem: [] };
  } catch (e) {
    if (!(e instanceof SeccompUnavailableError)) throw e;
    return { seccomp: null, problem: [`no seccomp filter (${e.code}: ${e.message}); sandboxes do not run without one`] };
  }
}

/** The supervisor's execute-only shell, or the problem that stops this runner. */
function prepareShell(): { shell: SupervisorShell | null; problem: string[] } {
  try {
    return { shell: prepareSupervisorShell(), problem: [] };
  } catch (err) {
    return { shell: null, problem: [`no execute-only supervisor shell: ${err instanceof Error ? err.message : String(err)}`] };
  }
}
