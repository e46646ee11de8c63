// A long-lived memory and pids cgroup per execution slot, created at start-up.
// Every run of the slot (a bubblewrap sandbox, or the slot's python zygote,
// which sits in it for its whole life) is in it, and the limits are written
// before each run. The memory cgroup charges what RLIMIT_AS misses: shmem
// (tmpfs, memfd, SysV segments), page tables, and kernel memory such as inode
// and dentry slab (v1 charges kmem to memory.usage_in_bytes since 5.x; v2
// always), summed over every process of the run.
//
// Per slot rather than per run: creating and removing cgroups per run leaves
// dying memory cgroups behind (pages they were charged for stay cached) and
// measured +14 ms p50 with ~1 s stalls on cgroup v1; a slot's cgroup is made
// once, and a zygote joins it once (its runs are born inside it). Runs in one
// slot never overlap, so the slot's counters describe one run at a time.
//
// Used only when the probe at start shows that we can create a child of our
// own cgroup with the memory controller, limit it and move a process into it
// (root on cgroup v1; on v2 only where the controller is delegated). Cgroups
// are nested under the service's own, so every ancestor's limits still apply.
// Cgroups of a crashed service are emptied (SIGKILL) and removed by the next
// probe in the same place.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CodedError } from '@rl/service-kit';
import { ownPlaces, type Place } from './cgroup-places.ts';
import { processAlive as alive } from './reaper.ts';

/** Counters read after a run. */
export interface CgroupStats {
  oomKills: number;
  peakBytes: number | null;
  /**
   * What the slot was already charged when the peak was last reset (its zygote,
   * page cache and tmpfs pages an earlier run's teardown has not returned yet).
   */
  startBytes: number | null;
}

/** One run's view of its slot's cgroup. */
export interface CgroupRun {
  /** `cgroup.procs` files the launcher writes its pid into before exec'ing bwrap. */
  procs: string[];
  stats(): CgroupStats;
  /** Forgets the peak so far (the compiler's), so the run's own peak is reported; v1 only, else the peak becomes unknown. */
  resetPeak(): void;
  /** Lowers the memory limit (after a compile step that needed more); false if usage could not be brought under it. */
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
  pidsDir: string | null;
}

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
  static probe(slotCount: number): SlotCgroups | null {
    let made: SlotDirs[] = [];
    try {
      const { memory, pids } = ownPlaces();
      if (memory === null) return null;
      for (const place of [memory, pids]) if (place !== null) reapStale(place.dir);
      // The pid names the owner for reaping; the tag keeps two pools of one process apart.
      const prefix = `rs-${process.pid}-${randomBytes(4).toString('hex')}`;
      made = Array.from({ length: slotCount }, (_, i) => createSlot(memory, pids, `${prefix}-s${i}`));
      const cgroups = new SlotCgroups(memory.v2, made);
      const run = cgroups.prepare(0, 64 * 1024 * 1024, 16);
      const script = run.procs.map((p) => `echo $$ > '${p}'`).join(' && ') + ' && cat /proc/self/cgroup';
      const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', timeout: 5000 });
      const name = `${prefix}-s0`;
      if (r.status === 0 && r.stdout.includes(name)) return cgroups;
      cgroups.close();
      return null;
    } catch {
      for (const s of made) for (const d of s.dirs) rmdirQuiet(d);
      return null;
    }
  }

  /** The `cgroup.procs` files of a slot (what a zygote joins once). */
  procs(slot: number): string[] {
    return this.#slot(slot).dirs.map((d) => join(d, 'cgroup.procs'));
  }

  /**
   * Sets the slot's limits for its next run: memory (bytes, swap included) and
   * tasks. Usage left by earlier runs (page cache) is reclaimed by the kernel
   * when the limit is written; if it cannot be, the slot is emptied once more
   * (force_empty) and otherwise refused with {@link SlotCgroupError}.
   */
  prepare(slot: number, memoryBytes: number, maxTasks: number): CgroupRun {
    const s = this.#slot(slot);
    const v2 = this.v2;
    const mem = (f: string, v: string) => writeFileSync(join(s.memDir, f), v);
    try {
      setMemoryLimit(s.memDir, v2, memoryBytes);
    } catch (first) {
      try {
        if (!v2) mem('memory.force_empty', '0');
        setMemoryLimit(s.memDir, v2, memoryBytes);
      } catch {
        const usage = read(join(s.memDir, v2 ? 'memory.current' : 'memory.usage_in_bytes'))?.trim();
        throw new SlotCgroupError(SlotCgroupProblem.Busy, `slot ${slot} cgroup holds ${usage} bytes, over the next run's ${memoryBytes}`, { cause: first });
      }
    }
    if (!v2) mem('memory.max_usage_in_bytes', '0');
    const usageNow = () => {
      const v = read(join(s.memDir, v2 ? 'memory.current' : 'memory.usage_in_bytes'));
      return v === null ? null : Number(v.trim());
    };
    let startBytes = usageNow();
    if (s.pidsDir !== null) writeFileSync(join(s.pidsDir, 'pids.max'), String(maxTasks + zombies(s.pidsDir, v2)));
    const oomKills = () => Number(/^oom_kill (\d+)$/m.exec(read(join(s.memDir, v2 ? 'memory.events' : 'memory.oom_control')) ?? '')?.[1] ?? 0);
    const oomBase = oomKills();
    // v2's memory.peak is the cgroup's lifetime peak (no global reset), so a slot has no per-run peak there.
    let peakKnown = !v2;
    return {
      procs: this.procs(slot),
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
          mem('memory.max_usage_in_bytes', '0');
          startBytes = usageNow();
        } catch {
          peakKnown = false;
        }
      },
      stats: () => {
        const peak = read(join(s.memDir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes'));
        return { oomKills: oomKills() - oomBase, peakBytes: peak === null || !peakKnown ? null : Number(peak.trim()), startBytes };
      },
    };
  }

  /** Bytes the slot's cgroup is charged for now (processes, shmem, kernel memory, cache). */
  usageBytes(slot: number): number | null {
    const s = this.#slot(slot);
    const v = read(join(s.memDir, this.v2 ? 'memory.current' : 'memory.usage_in_bytes'));
    return v === null ? null : Number(v.trim());
  }

  /** Highest usage since the slot's last prepare() (v1; null on v2, whose peak is the cgroup's lifetime). */
  peakBytes(slot: number): number | null {
    if (this.v2) return null;
    const v = read(join(this.#slot(slot).memDir, 'memory.max_usage_in_bytes'));
    return v === null ? null : Number(v.trim());
  }

  /** Removes the slots' cgroups (those still holding tasks stay for the next probe's reaping). */
  close(): void {
    for (const s of this.#slots) for (const d of s.dirs) rmdirQuiet(d);
  }

  #slot(slot: number): SlotDirs {
    const s = this.#slots[slot];
    if (s === undefined) throw new RangeError(`no cgroup for slot ${slot}`);
    return s;
  }
}

function createSlot(memory: Place, pids: Place | null, name: string): SlotDirs {
  const memDir = join(memory.dir, name);
  const pidsDir = pids === null ? null : join(pids.dir, name);
  const dirs = [memDir, ...(pidsDir !== null && pidsDir !== memDir ? [pidsDir] : [])];
  for (const d of dirs) mkdirSync(d);
  return { dirs, memDir, pidsDir };
}

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
    for (const pid of tasks(d)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
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
