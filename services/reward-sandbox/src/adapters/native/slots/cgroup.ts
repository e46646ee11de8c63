// Long-lived memory and pids cgroups per execution slot, created at start-up.
// The slot's memory cgroup holds what serves a run (a bubblewrap run's
// launcher, relays, bwrap and supervisor, or the slot's python zygote, which
// sits in it for its whole life); its run cgroups hold only a program and
// what it forks, capped at memory_limit_MB + a margin (../plan/memory-budget.ts says which
// limit is which). Bubblewrap runs use `run2`; the zygote alternates `run0`
// and `run1`, so the next run's program joins its run cgroup while the
// current one runs in the other (off the critical path: a v1 move waits for
// an RCU grace period, ~9 ms here), and an idle program process waiting in
// one is never in a bubblewrap run's. A program joins its run cgroup itself,
// before its code: the host binds the run cgroups' `cgroup.procs`, owned by
// the slot's uid, into the sandbox (../bubblewrap/argv.ts RUN_CGROUP_PROCS), and the
// program's subshell (or the zygote's program process) writes 0 to its own.
// Only that file is reachable from the program (the zygote's run pid 1 covers
// the other one), so it can move itself into its own cgroup and nowhere else. The
// memory cgroups charge what RLIMIT_AS misses: shmem (tmpfs, memfd, SysV
// segments), page tables, and kernel memory such as inode and dentry slab (v1
// charges kmem to memory.usage_in_bytes since 5.x), summed over every process
// of the run.
//
// Per slot rather than per run: creating and removing cgroups per run leaves
// dying memory cgroups behind (pages they were charged for stay cached) and
// measured +14 ms p50 with ~1 s stalls on cgroup v1; a slot's cgroups are made
// once. Runs in one slot never overlap, so the slot's counters describe one
// run at a time.
//
// Used only when the probe at start shows that we can create a child of our
// own cgroup with the memory controller, limit it and move a process into it,
// on a cgroup v1 memory hierarchy (root). On v2 a cgroup with a child that has
// the memory controller may hold no process, and a move needs the common
// ancestor's cgroup.procs, which the program must not get: no cgroups there.
// Cgroups are nested under the service's own, so every ancestor's limits still
// apply. Cgroups of a crashed service are emptied (SIGKILL) and removed by the
// next probe in the same place.

import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CodedError } from '@rl/service-kit';
import { ownPlaces, type Place } from './cgroup-places.ts';
import { processAlive as alive } from '../reaper.ts';
import type { Slot } from './slot-pool.ts';

/** Counters read after a run. */
export interface CgroupStats {
  /** OOM kills in the slot (the run cgroup's included). */
  oomKills: number;
  /** The run cgroup's peak since the last reset: the program's. */
  peakBytes: number | null;
  /**
   * What the run cgroup was already charged when the peak was last reset
   * (pages an earlier run's teardown has not returned yet).
   */
  startBytes: number | null;
}

/** One run's view of its slot's cgroup. */
export interface CgroupRun {
  /** `cgroup.procs` files the launcher writes its pid into before exec'ing bwrap. */
  procs: string[];
  /** Host path of the run cgroup's `cgroup.procs` (owned by the slot's uid), which the program writes 0 to. */
  runProcs: string;
  stats(): CgroupStats;
  /** Forgets the peak so far (the compiler's), so the run's own peak is reported; v1 only, else the peak becomes unknown. */
  resetPeak(): void;
  /** Lowers the slot's memory limit (after a compile step that needed more); false if usage could not be brought under it. */
  tighten(memoryBytes: number): boolean;
}

/** Stable codes of {@link SlotCgroupError}. */
export const SlotCgroupProblem = {
  /** Usage left from earlier runs could not be brought under the new limit. */
  Busy: 'slot_cgroup_busy',
} as const;
/** Union of {@link SlotCgroupProblem} codes. */
export type SlotCgroupProblem = (typeof SlotCgroupProblem)[keyof typeof SlotCgroupProblem];

/** A slot's cgroup cannot take the next run. */
export class SlotCgroupError extends CodedError<SlotCgroupProblem> {
  override readonly name = 'SlotCgroupError';
}

interface SlotDirs {
  dirs: string[];
  memDir: string;
  /** The run cgroups, children of memDir (RUNS). */
  runDirs: readonly string[];
  pidsDir: string | null;
}

/** Names of the run cgroups inside a slot's memory cgroup. */
const RUNS = ['run0', 'run1', 'run2'] as const;
/** Which of a slot's run cgroups: 0 and 1 the zygote's, 2 bubblewrap's (see the file comment). */
export type RunCgroupIndex = 0 | 1 | 2;
/** The run cgroup of bubblewrap runs. */
export const BWRAP_RUN_CGROUP: RunCgroupIndex = 2;

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};
const tasks = (dir: string) => (read(join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number);

/**
 * Tasks charged to the pids controller that have exited but are not released:
 * orphans of earlier runs (the relays' `cat`s, a killed sandbox's pid 1) are
 * reparented to the host's init, and until it reaps them they still count in
 * pids.current (seen here: ~3 per run, under an init that reaps lazily). They
 * are no run's processes, so the next run's task budget comes on top of them.
 */
function zombies(pidsDir: string, v2: boolean): number {
  const charged = Number(read(join(pidsDir, 'pids.current'))?.trim() ?? 0);
  const live = (read(join(pidsDir, v2 ? 'cgroup.threads' : 'tasks')) ?? '').split('\n').filter(Boolean).length;
  return Number.isFinite(charged) ? Math.max(0, charged - live) : 0;
}

/** The per-slot cgroups; `probe()` returns null when cgroups are unusable here. */
export class SlotCgroups {
  readonly v2: boolean;
  readonly #slots: SlotDirs[];

  private constructor(v2: boolean, slots: SlotDirs[]) {
    this.v2 = v2;
    this.#slots = slots;
    process.once('exit', () => this.close());
  }

  /** Cleans up after crashed services, creates one cgroup per slot and checks a process can join one; null if any step fails. */
  static probe(slots: Slot[]): SlotCgroups | null {
    let made: SlotDirs[] = [];
    try {
      const { memory, pids } = ownPlaces();
      if (memory === null || memory.v2) return null;
      for (const place of [memory, pids]) if (place !== null) reapStale(place.dir);
      // The pid names the owner for reaping; the tag keeps two pools of one process apart.
      const prefix = `rs-${process.pid}-${randomBytes(4).toString('hex')}`;
      made = slots.map((slot) => createSlot(memory, pids, `${prefix}-s${slot.index}`, slot.uid));
      const cgroups = new SlotCgroups(memory.v2, made);
      const run = cgroups.prepare(0, 96 * 1024 * 1024, 64 * 1024 * 1024, 16);
      // A process of the slot's uid joins the slot, then moves itself into the run cgroup, as a program does.
      const script = `${run.procs.map((p) => `echo $$ > '${p}'`).join(' && ')} && exec setpriv --reuid=${slots[0]!.uid} --regid=${slots[0]!.uid} --clear-groups /bin/sh -c 'echo 0 > "$0" && cat /proc/self/cgroup' '${run.runProcs}'`;
      const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', timeout: 5000 });
      const name = `${prefix}-s${slots[0]!.index}/${RUNS[BWRAP_RUN_CGROUP]}`;
      if (r.status === 0 && r.stdout.includes(name)) return cgroups;
      cgroups.close();
      return null;
    } catch {
      for (const s of made) removeSlot(s);
      return null;
    }
  }

  /** The `cgroup.procs` files of a slot (what a zygote joins once). */
  procs(slot: number): string[] {
    return this.#slot(slot).dirs.map((d) => join(d, 'cgroup.procs'));
  }

  /** Host path of one of the slot's run cgroups' `cgroup.procs` (what a program writes 0 to). */
  runProcs(slot: number, run: RunCgroupIndex = BWRAP_RUN_CGROUP): string {
    return join(this.#slot(slot).runDirs[run]!, 'cgroup.procs');
  }

  /**
   * Sets the slot's limits for its next run: the slot's memory (bytes, swap
   * included), the run cgroup's (the program's budget) and tasks. Usage left
   * by earlier runs (page cache) is reclaimed by the kernel when a limit is
   * written; tmpfs pages of a run whose namespace is still being torn down are
   * waited for (up to a second); what remains is refused with
   * {@link SlotCgroupError}.
   */
  prepare(slot: number, slotBytes: number, runBytes: number, maxTasks: number, run: RunCgroupIndex = BWRAP_RUN_CGROUP): CgroupRun {
    const s = this.#slot(slot);
    const runDir = s.runDirs[run]!;
    const v2 = this.v2;
    for (const [dir, bytes] of [
      [runDir, runBytes],
      [s.memDir, slotBytes],
    ] as const)
      limitOrRefuse(slot, dir, v2, bytes);
    for (const dir of [s.memDir, runDir]) if (!v2) writeFileSync(join(dir, 'memory.max_usage_in_bytes'), '0');
    const usageNow = () => {
      const v = read(join(runDir, v2 ? 'memory.current' : 'memory.usage_in_bytes'));
      return v === null ? null : Number(v.trim());
    };
    let startBytes = usageNow();
    if (s.pidsDir !== null) writeFileSync(join(s.pidsDir, 'pids.max'), String(maxTasks + zombies(s.pidsDir, v2)));
    const oomKills = (dir: string) => Number(/^oom_kill (\d+)$/m.exec(read(join(dir, v2 ? 'memory.events' : 'memory.oom_control')) ?? '')?.[1] ?? 0);
    const oomBase = { slot: oomKills(s.memDir), run: oomKills(runDir) };
    // v2's memory.peak is the cgroup's lifetime peak (no global reset), so a slot has no per-run peak there.
    let peakKnown = !v2;
    return {
      procs: this.procs(slot),
      runProcs: this.runProcs(slot, run),
      tighten: (bytes) => {
        try {
          setMemoryLimit(s.memDir, v2, bytes);
          return true;
        } catch {
          return false;
        }
      },
      resetPeak: () => {
        try {
          if (v2) throw new Error('no global reset on v2');
          writeFileSync(join(runDir, 'memory.max_usage_in_bytes'), '0');
          startBytes = usageNow();
        } catch {
          peakKnown = false;
        }
      },
      stats: () => {
        const peak = read(join(runDir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes'));
        // An OOM in the run cgroup also counts in the slot's where the kernel propagates events: the larger, not the sum.
        const kills = Math.max(oomKills(s.memDir) - oomBase.slot, oomKills(runDir) - oomBase.run);
        return { oomKills: kills, peakBytes: peak === null || !peakKnown ? null : Number(peak.trim()), startBytes };
      },
    };
  }

  /** Bytes the slot's cgroup is charged for now (processes, shmem, kernel memory, cache; its run cgroup's included). */
  usageBytes(slot: number): number | null {
    const s = this.#slot(slot);
    const v = read(join(s.memDir, this.v2 ? 'memory.current' : 'memory.usage_in_bytes'));
    return v === null ? null : Number(v.trim());
  }

  /** Highest usage of one of the slot's run cgroups (a program's) since its last prepare() or reset (v1 only). */
  peakBytes(slot: number, run: RunCgroupIndex = BWRAP_RUN_CGROUP): number | null {
    if (this.v2) return null;
    const v = read(join(this.#slot(slot).runDirs[run]!, 'memory.max_usage_in_bytes'));
    return v === null ? null : Number(v.trim());
  }

  /** Removes the slots' cgroups (those still holding tasks stay for the next probe's reaping). */
  close(): void {
    for (const s of this.#slots) removeSlot(s);
  }

  #slot(slot: number): SlotDirs {
    const s = this.#slots[slot];
    if (s === undefined) throw new RangeError(`no cgroup for slot ${slot}`);
    return s;
  }
}

function createSlot(memory: Place, pids: Place | null, name: string, uid: number): SlotDirs {
  const memDir = join(memory.dir, name);
  const runDirs = RUNS.map((r) => join(memDir, r));
  const pidsDir = pids === null ? null : join(pids.dir, name);
  const dirs = [memDir, ...(pidsDir !== null && pidsDir !== memDir ? [pidsDir] : [])];
  for (const d of dirs) mkdirSync(d);
  // The slot's processes may move themselves in (the kernel also wants the writer's uid to be the mover's).
  for (const runDir of runDirs) {
    mkdirSync(runDir);
    for (const f of ['cgroup.procs', 'tasks']) chownSync(join(runDir, f), uid, uid);
  }
  return { dirs, memDir, runDirs, pidsDir };
}

function removeSlot(s: SlotDirs): void {
  for (const d of s.runDirs) rmdirQuiet(d);
  for (const d of s.dirs) rmdirQuiet(d);
}

/** Writes a limit; usage over it that reclaim cannot free (a torn-down run's tmpfs on its way out) is waited for, then refused. */
function limitOrRefuse(slot: number, dir: string, v2: boolean, bytes: number): void {
  const deadline = performance.now() + 1000;
  let first: unknown = null;
  for (;;) {
    try {
      setMemoryLimit(dir, v2, bytes);
      return;
    } catch (e) {
      first ??= e;
      if (!v2) {
        try {
          writeFileSync(join(dir, 'memory.force_empty'), '0');
        } catch {
          // tasks inside, or pages it cannot drop
        }
      }
    }
    if (performance.now() > deadline) {
      const usage = read(join(dir, v2 ? 'memory.current' : 'memory.usage_in_bytes'))?.trim();
      throw new SlotCgroupError(SlotCgroupProblem.Busy, `slot ${slot} cgroup ${dir} holds ${usage} bytes, over the next run's ${bytes}`, { cause: first });
    }
    Atomics.wait(PAUSE, 0, 0, 5); // a namespace's last mntput is a deferred work item: give it a few ms
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function setMemoryLimit(dir: string, v2: boolean, bytes: number): void {
  const mem = (f: string, v: string) => writeFileSync(join(dir, f), v);
  if (v2) {
    mem('memory.max', String(bytes));
    if (existsSync(join(dir, 'memory.swap.max'))) mem('memory.swap.max', '0');
    return;
  }
  // memsw must stay >= the memory limit at every step, whichever way the limits move.
  const memsw = existsSync(join(dir, 'memory.memsw.limit_in_bytes'));
  if (memsw) mem('memory.memsw.limit_in_bytes', '-1');
  mem('memory.limit_in_bytes', String(bytes));
  if (memsw) mem('memory.memsw.limit_in_bytes', String(bytes));
}

/** Kills what is left in cgroups of services that no longer run, and removes them. */
function reapStale(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = /^rs-(\d+)-/.exec(name);
    if (m === null || alive(Number(m[1]))) continue;
    const d = join(dir, name);
    const runs = RUNS.map((r) => join(d, r));
    for (const pid of [...runs.flatMap(tasks), ...tasks(d)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const r of runs) rmdirQuiet(r);
    rmdirQuiet(d);
  }
}

function rmdirQuiet(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // busy or gone
  }
}
