// The memory budgets of a native run's two cgroups (../slots/cgroup.ts). The
// slot's memory cgroup holds what serves the run: its launcher, relays,
// bubblewrap's monitor and init, the supervisor, the slot's zygote, their page
// cache, the run's inputs and a compiler. Its child, the run cgroup, holds only
// the program and what it forks: every page they touch (anonymous, shmem in
// /tmp, /dev/shm, memfd and SysV segments, page tables, kernel memory) is
// charged there, capped at memory_limit_MB + runMarginMb. The slot's limit is
// the run cgroup's plus room for the rest, so the program cannot eat its
// supervisor's memory, nor the supervisor the program's. RLIMIT_AS (the
// language table's addressSpaceMb, limits.ts) is a per-process first line.

const MiB = 1024 * 1024;

/**
 * Room past memory_limit_MB in the run cgroup, MiB: the program's own
 * interpreter or runtime (a fresh python with site holds ~9 MiB before the
 * first line runs) and allocator slack, so a program using its whole limit
 * in data is not killed for its runtime. max(32 MiB, 25% of the limit).
 */
export function runMarginMb(memoryMb: number): number {
  return Math.max(32, Math.floor(memoryMb / 4));
}

/**
 * The run cgroup's limit, bytes: everything the program and its children may
 * hold together. `floorMb`: a language whose run step also compiles
 * (languages/types.ts runFloorMb) gets at least that budget.
 */
export function runCgroupBytes(memoryMb: number, floorMb = 0): number {
  const budget = Math.max(memoryMb, floorMb);
  return (budget + runMarginMb(budget)) * MiB;
}

/**
 * Room in a slot's memory cgroup beyond its run cgroup: the supervisor, relays
 * and bwrap's monitor (or the slot's idle zygote and the run's supervisor and
 * pid 1), spare launchers, and page cache of the toolchain that the kernel
 * reclaims on demand. MiB.
 */
export const CGROUP_SLACK_MB = 128;

/**
 * The slot cgroup's limit, bytes: the run cgroup's (for `memoryMb`: the
 * program's limit, or a compiler's budget) + the run's inputs and a
 * compiler's files in /tmp (tmpBytes) + slack. /dev/shm is the program's,
 * inside its run cgroup.
 */
export function slotCgroupBytes(memoryMb: number, tmpBytes: number): number {
  return runCgroupBytes(memoryMb) + tmpBytes + CGROUP_SLACK_MB * MiB;
}
