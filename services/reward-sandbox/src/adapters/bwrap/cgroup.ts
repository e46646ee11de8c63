// Optional per-run cgroup: caps the memory of the whole sandbox (all processes
// plus its tmpfs pages), caps the task count, and counts OOM kills exactly.
// rlimits stay the baseline; this is only used when the probe at start shows
// that we can create a child of our own cgroup with the memory controller and
// move a process into it (root on cgroup v1; on v2 only where the controller
// is enabled for our cgroup's children). Runs are nested under the service's
// own cgroup so every ancestor's limits still apply, and each run's cgroup is
// removed afterwards, so nothing is left behind between runs.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Place {
  dir: string;
  v2: boolean;
}

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
  dispose(): Promise<void>;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Our own cgroup dirs for the memory and pids controllers. */
function ownPlaces(): { memory: Place | null; pids: Place | null } {
  const mounts = (read('/proc/self/mountinfo') ?? '').split('\n').map((l) => {
    const [pre, post] = l.split(' - ');
    const f = (pre ?? '').split(' ');
    const g = (post ?? '').split(' ');
    return { root: f[3] ?? '', point: f[4] ?? '', type: g[0] ?? '', opts: g[2] ?? '' };
  });
  const out: { memory: Place | null; pids: Place | null } = { memory: null, pids: null };
  for (const line of (read('/proc/self/cgroup') ?? '').split('\n')) {
    const [, ctrls, path] = line.split(':');
    if (path === undefined || ctrls === undefined) continue;
    const v2 = ctrls === '';
    const m = mounts.find((mt) => (v2 ? mt.type === 'cgroup2' : mt.type === 'cgroup' && mt.opts.split(',').some((o) => ctrls.split(',').includes(o))));
    if (m === undefined || !path.startsWith(m.root)) continue;
    const dir = join(m.point, path.slice(m.root === '/' ? 0 : m.root.length));
    const has = (c: string) => (v2 ? (read(join(dir, 'cgroup.subtree_control')) ?? '').split(/\s+/).includes(c) : ctrls.split(',').includes(c));
    if (has('memory') && (out.memory === null || !v2)) out.memory = { dir, v2 };
    if (has('pids') && (out.pids === null || !v2)) out.pids = { dir, v2 };
  }
  return out;
}

/** Creates per-run cgroups; `probe()` returns null when cgroups are unusable here. */
export class CgroupFactory {
  #memory: Place;
  #pids: Place | null;
  #seq = 0;

  private constructor(memory: Place, pids: Place | null) {
    this.#memory = memory;
    this.#pids = pids;
  }

  /** Tries a real cgroup (create, limit, join, remove); null if any step fails. */
  static probe(): CgroupFactory | null {
    try {
      const { memory, pids } = ownPlaces();
      if (memory === null) return null;
      const factory = new CgroupFactory(memory, pids);
      const run = factory.create(64 * 1024 * 1024, 16);
      try {
        const script = run.procs.map((p) => `echo $$ > '${p}'`).join(' && ') + ' && cat /proc/self/cgroup';
        const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', timeout: 5000 });
        const name = run.procs[0]?.split('/').at(-2) ?? '\0';
        if (r.status !== 0 || !r.stdout.includes(name)) return null;
      } finally {
        void run.dispose();
      }
      return factory;
    } catch {
      return null;
    }
  }

  /** A fresh cgroup capping memory (bytes, swap included) and tasks. */
  create(memoryBytes: number, tasks: number): CgroupRun {
    const name = `rs-${process.pid}-${++this.#seq}`;
    const places = [this.#memory, ...(this.#pids !== null && this.#pids.dir !== this.#memory.dir ? [this.#pids] : [])];
    const dirs = places.map((p) => join(p.dir, name));
    const memDir = join(this.#memory.dir, name);
    const v2 = this.#memory.v2;
    try {
      for (const d of dirs) mkdirSync(d);
      writeFileSync(join(memDir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(memoryBytes));
      const swap = join(memDir, v2 ? 'memory.swap.max' : 'memory.memsw.limit_in_bytes');
      if (existsSync(swap)) writeFileSync(swap, v2 ? '0' : String(memoryBytes));
      if (this.#pids !== null) writeFileSync(join(this.#pids.dir, name, 'pids.max'), String(tasks));
    } catch (err) {
      for (const d of dirs) rmdirSafe(d);
      throw err;
    }
    let peakKnown = true;
    return {
      procs: dirs.map((d) => join(d, 'cgroup.procs')),
      resetPeak: () => {
        try {
          if (v2) throw new Error('memory.peak resets are per open file on v2');
          writeFileSync(join(memDir, 'memory.max_usage_in_bytes'), '0');
        } catch {
          peakKnown = false;
        }
      },
      stats: () => {
        const events = read(join(memDir, v2 ? 'memory.events' : 'memory.oom_control')) ?? '';
        const oom = /^oom_kill (\d+)$/m.exec(events);
        const peak = read(join(memDir, v2 ? 'memory.peak' : 'memory.max_usage_in_bytes'));
        return { oomKills: oom ? Number(oom[1]) : 0, peakBytes: peak === null || !peakKnown ? null : Number(peak.trim()) };
      },
      dispose: async () => {
        // The last tasks can take a moment to leave after the namespace is torn down.
        for (let i = 0, wait = 5; i < 30 && dirs.some(existsSync); i++, wait = Math.min(wait * 2, 1000)) {
          for (const d of dirs) rmdirSafe(d);
          if (dirs.some(existsSync)) await new Promise((r) => setTimeout(r, wait));
        }
      },
    };
  }
}

function rmdirSafe(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // busy or already gone; the caller retries
  }
}
