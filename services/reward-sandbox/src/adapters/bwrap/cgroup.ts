// Optional per-run cgroup: caps the memory of the whole sandbox (all processes
// plus its tmpfs pages), caps the task count, and counts OOM kills exactly.
// rlimits stay the baseline; this is only used when the probe at start shows
// that we can create a child of our own cgroup with the memory controller and
// move a process into it (root on cgroup v1; on v2 only where the controller
// is enabled for our cgroup's children). Cgroups are nested under the
// service's own, so every ancestor's limits still apply.
//
// Cgroups are pooled rather than created per run: a removed memory cgroup lingers
// in the kernel while pages it was charged for (the interpreter's page cache)
// stay cached, and thousands of such dying cgroups slow the host down. Pooled
// ones are removed by close() (and on a normal exit); ones left by a crashed
// service are emptied (SIGKILL) and removed by the next probe in the same place.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownPlaces, type Place } from './cgroup-places.ts';

/** Counters read after a run. */
export interface CgroupStats {
  oomKills: number;
  peakBytes: number | null;
}

/** One run's cgroup. */
export interface CgroupRun {
  /** `cgroup.procs` files the launcher writes its pid into before exec'ing bwrap. */
  procs: string[];
  stats(): CgroupStats;
  /** Forgets the peak so far (the compiler's), so the run's own peak is reported; v1 only, else the peak becomes unknown. */
  resetPeak(): void;
  /** Returns the cgroup to the pool once its last task has gone (in the background). */
  release(): void;
}

interface Slot {
  dirs: string[];
  memDir: string;
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};
const tasks = (dir: string) => (read(join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number);
const empty = (s: Slot) => s.dirs.every((d) => tasks(d).length === 0);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Hands out pooled cgroups; `probe()` returns null when cgroups are unusable here. */
export class CgroupFactory {
  #memory: Place;
  #pids: Place | null;
  #free: Slot[] = [];
  #all = new Set<Slot>();
  #seq = 0;
  #closed = false;

  private constructor(memory: Place, pids: Place | null) {
    this.#memory = memory;
    this.#pids = pids;
    process.once('exit', () => this.close());
  }

  /** Removes the idle pooled cgroups; cgroups still in use are removed when released. */
  close(): void {
    this.#closed = true;
    for (const s of this.#free.splice(0)) {
      for (const d of s.dirs) rmdirQuiet(d);
      this.#all.delete(s);
    }
  }

  /** Cleans up after crashed services, then tries a real cgroup (create, limit, join); null if any step fails. */
  static probe(): CgroupFactory | null {
    try {
      const { memory, pids } = ownPlaces();
      if (memory === null) return null;
      for (const place of [memory, pids]) if (place !== null) reapStale(place.dir);
      const factory = new CgroupFactory(memory, pids);
      const run = factory.acquire(64 * 1024 * 1024, 16);
      const script = run.procs.map((p) => `echo $$ > '${p}'`).join(' && ') + ' && cat /proc/self/cgroup';
      const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', timeout: 5000 });
      run.release();
      const name = run.procs[0]?.split('/').at(-2) ?? '\0';
      return r.status === 0 && r.stdout.includes(name) ? factory : null;
    } catch {
      return null;
    }
  }

  /** A cgroup (fresh or pooled) capping memory (bytes, swap included) and tasks. */
  acquire(memoryBytes: number, maxTasks: number): CgroupRun {
    const pooled = this.#free.pop();
    const slot = pooled ?? this.#create();
    const v2 = this.#memory.v2;
    const mem = (f: string, v: string) => writeFileSync(join(slot.memDir, f), v);
    if (v2) {
      mem('memory.max', String(memoryBytes));
      if (existsSync(join(slot.memDir, 'memory.swap.max'))) mem('memory.swap.max', '0');
    } else {
      // memsw must stay >= the memory limit at every step, whichever way the limits move.
      const memsw = existsSync(join(slot.memDir, 'memory.memsw.limit_in_bytes'));
      if (memsw) mem('memory.memsw.limit_in_bytes', '-1');
      mem('memory.limit_in_bytes', String(memoryBytes));
      if (memsw) mem('memory.memsw.limit_in_bytes', String(memoryBytes));
      mem('memory.max_usage_in_bytes', '0');
    }
    if (this.#pids !== null) writeFileSync(join(slot.dirs.at(-1)!, 'pids.max'), String(maxTasks));
    const oomKills = () => Number(/^oom_kill (\d+)$/m.exec(read(join(slot.memDir, v2 ? 'memory.events' : 'memory.oom_control')) ?? '')?.[1] ?? 0);
    const oomBase = oomKills();
    // v2's memory.peak cannot be reset for everyone, so a reused v2 cgroup has no usable peak.
    let peakKnown = !v2 || pooled === undefined;
    return {
      procs: slot.dirs.map((d) => join(d, 'cgroup.procs')),
      resetPeak: () => {
        try {
          if (v2) throw new Error('no global reset on v2');
          mem('memory.max_usage_in_bytes', '0');
        } catch {
          peakKnown = false;
        }
      },
      stats: () => {
        const peak = read(join(slot.memDir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes'));
        return { oomKills: oomKills() - oomBase, peakBytes: peak === null || !peakKnown ? null : Number(peak.trim()) };
      },
      release: () => void this.#release(slot),
    };
  }

  #create(): Slot {
    const name = `rs-${process.pid}-${++this.#seq}`;
    const dirs = [join(this.#memory.dir, name)];
    if (this.#pids !== null && this.#pids.dir !== this.#memory.dir) dirs.push(join(this.#pids.dir, name));
    const slot = { dirs, memDir: dirs[0]! };
    for (const d of dirs) mkdirSync(d);
    this.#all.add(slot);
    return slot;
  }

  async #release(slot: Slot): Promise<void> {
    // The last tasks (relays, zombies awaiting their reaper) can take a moment to leave.
    for (let wait = 5; wait < 10_000 && !empty(slot); wait *= 2) await new Promise((r) => setTimeout(r, wait));
    if (empty(slot)) this.#free.push(slot);
    else this.#all.delete(slot); // stuck: leave it for the next probe's reaping
    if (this.#closed) this.close();
  }
}

/** Kills what is left in cgroups of services that no longer run, and removes them. */
function reapStale(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = /^rs-(\d+)-\d+$/.exec(name);
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
