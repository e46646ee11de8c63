// Runner for native languages (python, pytest, bash, cpp, go, nodejs,
// typescript) in a fresh bubblewrap sandbox per run. Pieces in ./bwrap:
// argv.ts (namespaces and mounts), supervisor.ts (what runs inside), limits.ts
// (rlimits), execute.ts + reaper.ts (process lifecycle, deadlines, kills),
// outcome.ts (SandboxFusion result shape), memory.ts (memory verdict),
// cgroup.ts (optional whole-sandbox caps), probe.ts (start-up probing); the
// seccomp filter every sandbox loads is built once in ../seccomp.
// Runs share no state: each gets its own namespaces, tmpfs and (pooled, idle) cgroup.

import type { RunOutcome, RunSpec, Runner } from '../core/runner.ts';
import { SANDBOX_ENV, STDIN_PATH, WORK_DIR, bwrapArgs, type DataFile } from './bwrap/argv.ts';
import { CgroupFactory, type CgroupRun } from './bwrap/cgroup.ts';
import { execute } from './bwrap/execute.ts';
import { LANGUAGES, type LanguageSpec } from './bwrap/languages.ts';
import { BASE_LIMITS, cpuSecondsFor, ulimitScript } from './bwrap/limits.ts';
import { buildOutcome } from './bwrap/outcome.ts';
import { safeRelativePath } from './bwrap/paths.ts';
import { checkedInputs, groupFile, passwdFile, sourceFileName } from './bwrap/run-inputs.ts';
import { probeHost, type HostProbe } from './bwrap/probe.ts';
import { FD, supervisorScript } from './bwrap/supervisor.ts';
import { SUPERVISOR_SHELL, prepareSupervisorShell, type SupervisorShell } from './bwrap/supervisor-shell.ts';
import { SeccompUnavailableError, buildSeccompFilter, type SeccompFilter } from './seccomp/filter.ts';

/** Tunables; the defaults suit a reward sandbox. */
export interface BwrapRunnerOptions {
  /** Node binary for `nodejs`/`typescript` (bound read-only into the sandbox); omit to disable them. */
  nodePath?: string;
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
  /** Use a per-run cgroup when the host allows it. Default true. */
  cgroups?: boolean;
  /** Sandbox uid/gid (and host uid when dropping root). Default 65534. */
  sandboxUid?: number;
  /** When root and unprivileged user namespaces are blocked, run bwrap as root anyway (weaker; see probe.ts). Default false. */
  allowRootSandbox?: boolean;
  /** libseccomp to compile the seccomp filter with. Default 'libseccomp.so.2'. */
  seccompLibrary?: string;
}

const MiB = 1024 * 1024;

/** Runs native-language programs in per-run bubblewrap sandboxes. */
export class BwrapRunner implements Runner {
  readonly name = 'bwrap';
  /** What the start-up probe found (launch mode, missing pieces), for logs. */
  readonly host: HostProbe & { cgroups: boolean };
  /**
   * The seccomp filter every sandbox loads (also the zygote's); null when it
   * could not be built, and then this runner offers no languages (fail closed).
   */
  readonly seccomp: SeccompFilter | null;
  #opts: Required<Omit<BwrapRunnerOptions, 'nodePath' | 'bwrapPath' | 'allowRootSandbox' | 'seccompLibrary'>>;
  #cgroups: CgroupFactory | null;
  #languages: string[];
  #shell: SupervisorShell | null;

  constructor(options: BwrapRunnerOptions = {}) {
    this.#opts = {
      pythonPath: options.pythonPath ?? '/usr/bin/python3',
      tmpMb: options.tmpMb ?? 256,
      shmMb: options.shmMb ?? 64,
      compileMemoryMb: options.compileMemoryMb ?? 2048,
      processes: options.processes ?? BASE_LIMITS.processes,
      maxFetchBytes: options.maxFetchBytes ?? 64 * MiB,
      cgroups: options.cgroups ?? true,
      sandboxUid: options.sandboxUid ?? 65534,
    };
    const { seccomp, problem } = buildFilter(this.#opts.pythonPath, options.seccompLibrary);
    this.seccomp = seccomp;
    const shell = prepareShell();
    this.#shell = shell.shell;
    const probe = probeHost({
      ...options, pythonPath: this.#opts.pythonPath, sandboxUid: this.#opts.sandboxUid, ...(seccomp !== null && { seccomp: seccomp.bpf }),
    });
    this.#cgroups = this.#opts.cgroups ? CgroupFactory.probe() : null;
    this.host = { ...probe, problems: [...probe.problems, ...problem, ...shell.problem], cgroups: this.#cgroups !== null };
    // Without the execute-only shell the program could rewrite its supervisor's report: fail closed.
    this.#languages = seccomp === null || shell.shell === null ? [] : Object.entries(LANGUAGES).filter(([, l]) => l.available(probe.tools)).map(([n]) => n);
  }

  languages(): ReadonlyArray<string> {
    return this.#languages;
  }

  /** Removes pooled cgroups (call at shutdown; runs still in flight clean up after themselves). */
  close(): void {
    this.#cgroups?.close();
    this.#shell?.remove();
    this.#shell = null;
  }

  async run(spec: RunSpec, signal: AbortSignal): Promise<RunOutcome> {
    signal.throwIfAborted();
    const lang = LANGUAGES[spec.language];
    const seccomp = this.seccomp;
    const shell = this.#shell;
    if (lang === undefined || seccomp === null || shell === null || !this.#languages.includes(spec.language)) {
      const why = this.host.problems.length > 0 ? ` (${this.host.problems.join('; ')})` : '';
      throw new Error(`bwrap runner cannot run ${spec.language} on this host${why}`);
    }
    const inputs = checkedInputs(spec.files);
    const fetch = spec.fetchFiles.map(safeRelativePath);
    const source = sourceFileName(lang.extension);
    const code = Buffer.from(spec.code, 'utf8');

    // Data fds, in order: seccomp, passwd, group, [stdin], inputs, code (last, so it wins a name clash).
    const data: Uint8Array[] = [seccomp.bpf];
    const seccompFd = FD.firstData;
    const files: DataFile[] = [];
    const add = (dest: string, content: Uint8Array, perms: string) => {
      files.push({ fd: FD.firstData + data.length, dest, perms });
      data.push(content);
    };
    add('/etc/passwd', Buffer.from(passwdFile(this.#opts.sandboxUid)), '0644');
    add('/etc/group', Buffer.from(groupFile(this.#opts.sandboxUid)), '0644');
    if (spec.stdin !== null) add(STDIN_PATH, Buffer.from(spec.stdin, 'utf8'), '0444');
    for (const [path, content] of inputs) add(`${WORK_DIR}/${path}`, content, '0644');
    add(`${WORK_DIR}/${source}`, code, '0644');

    const inputBytes = data.reduce((n, d) => n + d.length, 0) - seccomp.bpf.length; // the filter is no file
    const tmpMb = this.#opts.tmpMb + Math.ceil(inputBytes / MiB); // inputs do not eat the scratch budget
    const ctx = { source, memoryLimitMb: spec.memoryLimitMb, tools: this.host.tools };
    const base = { ...BASE_LIMITS, processes: this.#opts.processes };
    const runCpuSeconds = cpuSecondsFor(spec.runTimeoutMs);
    const compile = lang.compile?.(ctx);
    const run = lang.run(ctx);
    const script = supervisorScript({
      ...(compile && {
        compile: {
          ...compile,
          limits: ulimitScript({ ...base, addressSpaceMb: Math.max(this.#opts.compileMemoryMb, spec.memoryLimitMb), cpuSeconds: cpuSecondsFor(spec.compileTimeoutMs) }),
        },
      }),
      run: { ...run, limits: ulimitScript({ ...base, addressSpaceMb: lang.addressSpaceMb(spec.memoryLimitMb), cpuSeconds: runCpuSeconds }) },
      stdinPath: spec.stdin === null ? null : STDIN_PATH,
      fetch,
    });
    const args = bwrapArgs({
      layout: this.host.layout, uid: this.#opts.sandboxUid, env: { ...SANDBOX_ENV },
      tmpBytes: tmpMb * MiB, shmBytes: this.#opts.shmMb * MiB, files, infoFd: FD.info, seccompFd,
      roBinds: [{ src: shell.hostPath, dest: SUPERVISOR_SHELL }],
      command: [SUPERVISOR_SHELL, '--norc', '--noprofile', '-c', script],
    });
    const cgroup = this.#createCgroup(lang, spec, tmpMb);
    try {
      const x = await execute({
        cgroupProcs: cgroup?.procs ?? [], dropPrivileges: this.host.prefix, command: [this.host.bwrap, ...args], data, hasCompile: compile !== undefined,
        ...(cgroup && { onRunAfterCompile: () => cgroup.resetPeak() }),
        setupTimeoutMs: 20_000, compileTimeoutMs: spec.compileTimeoutMs, runTimeoutMs: spec.runTimeoutMs, graceMs: 1_000,
        maxOutputBytes: spec.maxOutputBytes, maxReportBytes: this.#opts.maxFetchBytes + 64 * 1024, fetchCount: fetch.length,
      }, signal);
      if (!x.started) {
        const why = x.timedOut === 'setup' ? 'timed out during setup' : `exited with status ${x.exitStatus}`;
        throw new Error(`sandbox failed to start (${why}): ${x.stderr.text().trim().slice(0, 2000)}`);
      }
      return buildOutcome(x, {
        hasCompile: compile !== undefined, memoryLimitMb: spec.memoryLimitMb, compileMemoryMb: this.#opts.compileMemoryMb,
        runCpuSeconds, runMarkers: lang.memoryMarkers, fetchFiles: spec.fetchFiles, cgroup: cgroup?.stats() ?? null,
      });
    } finally {
      cgroup?.release();
    }
  }

  /** A cgroup bounding the whole sandbox: the larger of the compile/run memory, plus tmpfs and runtime slack. */
  #createCgroup(lang: LanguageSpec, spec: RunSpec, tmpMb: number): CgroupRun | null {
    if (this.#cgroups === null) return null;
    const mem = Math.max(spec.memoryLimitMb, lang.compile ? this.#opts.compileMemoryMb : 0) + tmpMb + this.#opts.shmMb + 128;
    try {
      return this.#cgroups.acquire(mem * MiB, this.#opts.processes + 16);
    } catch {
      return null; // rlimits still apply
    }
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
