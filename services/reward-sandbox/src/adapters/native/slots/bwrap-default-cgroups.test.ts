// Red team against bubblewrap runs under the default SANDBOX_CGROUPS: what a
// run can hold outside its address space (memfd pages filled by write(), the
// sum over forked processes) is stopped by the slot's run cgroup, which the
// program joins before exec (its launcher, ../bubblewrap/launcher.ts, is in the slot's). No sleeps: the programs
// report what they hold on stdout, and the holders block until the run ends.

import { afterAll, describe, expect, it } from 'vitest';
import { RewardSandboxConfig, cgroupRunnerOptions } from '../../../config.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';
import { runMarginMb } from '../plan/memory-budget.ts';
import { SlotPool } from './slot-pool.ts';

const mode = RewardSandboxConfig.shape.SANDBOX_CGROUPS.parse(undefined);
// One slot, so the slot's peak after a run is that run's.
const native = new BwrapRunner({ ...cgroupRunnerOptions(mode), slots: new SlotPool({ size: 1, uidBase: 2_000_000_300 }) });
afterAll(() => native.close());

const never = new AbortController().signal;
const MEMORY_MB = 128;
// What one run's processes may hold together: its limit + the run margin.
const CAP_MB = MEMORY_MB + runMarginMb(MEMORY_MB);
const MiB = 1024 * 1024;
const usable = process.getuid?.() === 0 && native.languages().includes('cpp') && native.languages().includes('bash') && native.cgroups !== null;
if (!usable) console.warn(`default-config bubblewrap cgroup cases skipped: ${native.host.problems.join('; ') || 'not root or no cpp/bash'}`);
const lastNumber = (s: string) => Math.max(0, ...s.split('\n').map(Number).filter(Number.isFinite));

describe.skipIf(!usable)(`bubblewrap runs under the default SANDBOX_CGROUPS (${mode})`, () => {
  it('the default puts bubblewrap runs in their slot cgroup', () => {
    expect(mode).toBe('all');
  });

  it(`stops a cpp program filling memfd files with write() (1024 MB asked, limit ${MEMORY_MB} MB, cap ${CAP_MB} MB)`, async () => {
    // 16 MiB writes, 3 per file: under RLIMIT_FSIZE (64 MiB); the pages are shmem, outside RLIMIT_AS.
    const code = `#include <sys/mman.h>
#include <unistd.h>
#include <cstdio>
#include <vector>
int main() {
  std::vector<char> chunk(16 << 20, 1);
  long total = 0;
  while (total < (1024L << 20)) {
    int fd = memfd_create("x", 0);
    if (fd < 0) { std::printf("error memfd\\n"); return 3; }
    for (int i = 0; i < 3; i++) {
      if (write(fd, chunk.data(), chunk.size()) != (ssize_t)chunk.size()) { std::printf("error write\\n"); return 3; }
      total += chunk.size();
      std::printf("%ld\\n", total >> 20);
      std::fflush(stdout);
    }
  }
  std::printf("held all\\n");
  return 0;
}`;
    const out = await native.run(testRunSpec('cpp', code, { memoryLimitMb: MEMORY_MB, runTimeoutMs: 20_000, compileTimeoutMs: 30_000 }), never);
    const stdout = out.run_result?.stdout ?? '';
    expect(out.compile_result?.return_code).toBe(0);
    expect(stdout).not.toContain('held all');
    expect(lastNumber(stdout)).toBeLessThan(CAP_MB);
    // memfd is not address space: the run cgroup's OOM kill stops it, not an allocation failure.
    expect(out.run_result).toMatchObject({ return_code: -9, memory_limit_exceeded: true });
    // What the host gave the program during the run stayed under the limit + the documented margin.
    const peak = native.cgroups!.peakBytes(0);
    expect(peak).not.toBeNull();
    expect(peak!).toBeLessThanOrEqual(CAP_MB * MiB);
  }, 90_000);

  it('caps a bash run forking memory holders as a whole (10 x 64 MiB, cap ' + CAP_MB + ' MB)', async () => {
    // Each holder touches 64 MiB (under RLIMIT_AS on its own), reports its pid, closes stdout and
    // waits for a signal; the pipeline ends once every holder has reported or died.
    const code = `P='import os, signal
x = bytearray(64 << 20)
for i in range(0, len(x), 4096):
    x[i] = 1
os.write(1, b"%d\\n" % os.getpid())
os.close(1)
signal.pause()'
pids=$(for i in 1 2 3 4 5 6 7 8 9 10; do python3 -c "$P" & done | cat)
alive=0
for p in $pids; do
  st=$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)
  if [ -n "$st" ] && [ "$st" != Z ]; then alive=$((alive + 1)); fi
done
echo "alive $alive reported $(echo $pids | wc -w)"`;
    const out = await native.run(testRunSpec('bash', code, { memoryLimitMb: MEMORY_MB, runTimeoutMs: 20_000 }), never);
    const stdout = out.run_result?.stdout ?? '';
    const alive = Number(/alive (\d+)/.exec(stdout)?.[1] ?? NaN);
    // A holder the OOM killer took may still be exiting when counted (not yet a zombie), so the
    // count is an upper bound; what the holders held together is the run cgroup's peak.
    expect(alive).toBeLessThan(10);
    expect(out.run_result?.memory_limit_exceeded).toBe(true);
    expect(native.cgroups!.peakBytes(0)!).toBeLessThanOrEqual(CAP_MB * MiB);
  }, 60_000);

  it('answers hello world within 10 s after the attacks', async () => {
    const started = performance.now();
    const out = await native.run(testRunSpec('bash', 'echo hello'), never);
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello\n' });
    // Generous, for a loaded host; what it rules out is a slot still waiting for the attack's leftovers.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
