// What one native run gets, decided here for both native back-ends (the
// per-run bubblewrap runner and the python zygote): the files placed in its
// sandbox, the rlimits of its compile and run steps, its tmpfs sizes and IPC
// limits, and its cgroup budgets. Pure: each runner turns the plan into fds,
// argv, zygote requests and cgroup writes.

import type { RunSpec } from '../../../core/runner.ts';
import type { CommandSpec, LanguageSpec, Toolchain } from '../languages/types.ts';
import { BASE_LIMITS, TMPFS_INODES, cpuSecondsFor, ipcSysctls, type Limits } from './limits.ts';
import { runCgroupBytes, slotCgroupBytes } from './memory-budget.ts';
import { STDIN_PATH, WORK_DIR, safeFetchPath } from './paths.ts';
import { HOSTS_FILE, checkedInputs, groupFile, passwdFile } from './run-inputs.ts';

const MiB = 1024 * 1024;

/** A native runner's tunables. */
export interface NativeRunSettings {
  /** Size cap of the writable /tmp (work dir + temp files), MiB; grows to fit the run's files. */
  tmpMb: number;
  /** Size cap of /dev/shm, MiB. */
  shmMb: number;
  /** RLIMIT_AS floor for compilers, MiB (g++ needs more than small run limits). */
  compileMemoryMb: number;
  /** RLIMIT_NPROC per sandbox. */
  processes: number;
  /** Sandbox uid/gid inside the namespace. */
  sandboxUid: number;
}

/** The defaults both native runners use. */
export const NATIVE_RUN_DEFAULTS: Readonly<NativeRunSettings> = {
  tmpMb: 256,
  shmMb: 64,
  compileMemoryMb: 2048,
  processes: BASE_LIMITS.processes,
  sandboxUid: 65534,
};

/** A size- and inode-capped tmpfs. */
export interface TmpfsCap {
  bytes: number;
  inodes: number;
}

/** One file written into the sandbox during setup. */
export interface PlannedFile {
  /** Absolute path in the sandbox. */
  dest: string;
  content: Uint8Array;
  perms: string;
}

/** A compile or run step: its command and rlimits. */
export interface PlannedStep extends CommandSpec {
  limits: Limits;
}

/** Memory and task limits of the run's slot cgroup and run cgroup (memory-budget.ts says which is which). */
export interface CgroupBudget {
  /** The slot's memory limit while the first step runs (a compile step's budget when there is one). */
  slotBytes: number;
  /** The slot's memory limit once the program runs (lowered to it after a compile step). */
  runSlotBytes: number;
  /** The run cgroup's limit: the program and what it forks. */
  runBytes: number;
  /** The slot's task limit (pids.max). */
  maxTasks: number;
}

/** Everything one native run gets. */
export interface NativeRunPlan {
  /** The code's file name in the work dir. */
  source: string;
  /** What the sandbox holds before the program starts, in order; the code is last, so it wins a name clash. */
  files: PlannedFile[];
  /** Where the program's stdin is read from, or null for /dev/null. */
  stdinPath: string | null;
  /** fetch_files entries that can name a file: [the request's name, the path read in the sandbox]. */
  fetch: Array<readonly [string, string]>;
  compile: PlannedStep | null;
  run: PlannedStep;
  /** The run's /tmp and /dev/shm. */
  tmpfs: { tmp: TmpfsCap; shm: TmpfsCap };
  /** SysV IPC limits of the run's IPC namespace (limits.ts ipcSysctls). */
  ipcSysctls: Record<string, string>;
  cgroup: CgroupBudget;
}

/** What a plan is made from besides the request. */
export interface PlanContext {
  language: LanguageSpec;
  /** The toolchain as the sandbox sees it (the host probe's). */
  tools: Toolchain;
  settings: NativeRunSettings;
  /** SandboxFusion's random `tmpXXXXXXXX` stem of the code's file name (run-inputs.ts sourceStem). */
  stem: string;
  /**
   * Whether the run's sandbox gets /etc/passwd, /etc/group and /etc/hosts with
   * its files (a per-run bubblewrap sandbox); a zygote's sandbox has them from
   * its start.
   */
  accountFiles: boolean;
}

/** A run's /tmp and /dev/shm before its files, and its IPC limits: what every run of a zygote starts from. */
export function baseSandbox(settings: NativeRunSettings): Pick<NativeRunPlan, 'tmpfs' | 'ipcSysctls'> {
  const shm = { bytes: settings.shmMb * MiB, inodes: TMPFS_INODES.shm };
  return { tmpfs: { tmp: { bytes: settings.tmpMb * MiB, inodes: TMPFS_INODES.tmp }, shm }, ipcSysctls: ipcSysctls(shm.bytes) };
}

/** The plan of one native run; throws on unsafe input paths. */
export function planNativeRun(spec: RunSpec, c: PlanContext): NativeRunPlan {
  const { language: lang, settings } = c;
  const inputs = checkedInputs(spec.files);
  const source = lang.fileName ?? `${c.stem}${lang.suffix ?? `.${lang.extension}`}`;
  const code = Buffer.from(lang.prepareCode?.(spec.code, c.tools) ?? spec.code, 'utf8');
  const files = placedFiles(spec, c, inputs, source, code);

  // Inputs do not eat the scratch budget, nor (those under /tmp) its inode budget.
  const placedBytes = files.reduce((n, f) => n + f.content.length, 0);
  const base = baseSandbox(settings);
  const tmp = {
    bytes: (settings.tmpMb + Math.ceil(placedBytes / MiB)) * MiB,
    inodes: base.tmpfs.tmp.inodes + files.filter((f) => f.dest.startsWith('/tmp/')).length,
  };

  const ctx = { source, memoryLimitMb: spec.memoryLimitMb, tools: c.tools, inputs: inputs.map(([p]) => p) };
  const limits = { ...BASE_LIMITS, processes: settings.processes };
  const compileCommand = lang.compile?.(ctx);
  const compileMb = Math.max(settings.compileMemoryMb, spec.memoryLimitMb);
  const compile =
    compileCommand === undefined
      ? null
      : { ...compileCommand, limits: { ...limits, addressSpaceMb: compileMb, cpuSeconds: cpuSecondsFor(spec.compileTimeoutMs) } };
  const run = {
    ...lang.run(ctx),
    limits: { ...limits, addressSpaceMb: lang.addressSpaceMb(spec.memoryLimitMb), cpuSeconds: cpuSecondsFor(spec.runTimeoutMs) },
  };

  // The program's budget is its run cgroup's; the slot's holds it, a compiler and what serves the run.
  const runSlotBytes = slotCgroupBytes(Math.max(spec.memoryLimitMb, lang.runFloorMb ?? 0), tmp.bytes);
  return {
    source,
    files,
    stdinPath: spec.stdin === null ? null : STDIN_PATH,
    fetch: spec.fetchFiles.flatMap((f) => {
      const p = safeFetchPath(f);
      return p === null ? [] : [[f, p] as const];
    }),
    compile,
    run,
    tmpfs: { tmp, shm: base.tmpfs.shm },
    ipcSysctls: base.ipcSysctls,
    cgroup: {
      slotBytes: compile === null ? runSlotBytes : slotCgroupBytes(compileMb, tmp.bytes),
      runSlotBytes,
      runBytes: runCgroupBytes(spec.memoryLimitMb, lang.runFloorMb),
      maxTasks: settings.processes + 16,
    },
  };
}

function placedFiles(spec: RunSpec, c: PlanContext, inputs: Array<[string, Uint8Array]>, source: string, code: Uint8Array): PlannedFile[] {
  const uid = c.settings.sandboxUid;
  const accounts = c.accountFiles
    ? [
        { dest: '/etc/passwd', content: Buffer.from(passwdFile(uid)), perms: '0644' },
        { dest: '/etc/group', content: Buffer.from(groupFile(uid)), perms: '0644' },
        { dest: '/etc/hosts', content: Buffer.from(HOSTS_FILE), perms: '0444' },
      ]
    : [];
  return [
    ...accounts,
    ...(spec.stdin === null ? [] : [{ dest: STDIN_PATH, content: Buffer.from(spec.stdin, 'utf8'), perms: '0444' }]),
    ...inputs.map(([path, content]) => ({ dest: `${WORK_DIR}/${path}`, content, perms: '0644' })),
    { dest: `${WORK_DIR}/${source}`, content: code, perms: '0644' },
  ];
}
