// CPU time spent by the bench's whole process tree (services, zygotes, sandboxes),
// from a cgroup-v1 cpuacct group the bench joins before it starts anything.
// Throughput at saturation swings by 20% on a shared 2-core host; CPU per run does
// not, and on a CPU-bound host it is what sets the saturation rate.
import { joinOwnCpuacctGroup, ownCpuPlace } from '../../services/reward-sandbox/src/adapters/native/slots/cgroup-places.ts';

/** Reads the tree's CPU time. */
export interface CpuAccount {
  /** CPU nanoseconds used by every process of the group so far. */
  usageNs(): number;
  /** Leaves the group and removes it (kept if a child is still inside). */
  close(): void;
}

/**
 * Moves this process into a fresh cpuacct group (children started later are
 * born there), or returns null where cgroup v1 cpuacct is absent or not writable
 * (cgroup v2 hosts: the sandbox moves its runs into its own subtree there).
 */
export function joinCpuAccount(name = `rl-bench-${process.pid}`): CpuAccount | null {
  const place = ownCpuPlace();
  const group = place === null || place.v2 ? null : joinOwnCpuacctGroup(place.dir, name);
  return group === null ? null : { usageNs: () => group.usageNs() ?? Number.NaN, close: group.leave };
}
