// Red-team cases for what a run can take from the host or from a concurrent
// run beyond its address space: memory in memfd files, tmpfs files, detached
// SysV segments, forked processes (each within RLIMIT_AS, together far past
// memory_limit_MB: the run's processes together stay within the limit + the
// run margin of ../../plan/memory-budget.ts), tmpfs inodes (kernel slab), and the per-user kernel budgets
// (inotify instances, pipe buffer pages) that a shared host uid would pool.
// Registered against both native back-ends (bubblewrap/containment.test.ts and
// zygote/zygote-runner.test.ts run them through slots/red-team.test.ts). Synchronisation is by
// gates on what the host can see (a marked process holding its fds), never sleeps.

import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { RunOutcome, RunSpec, Runner } from '../../../../core/runner.ts';
import { TMPFS_INODES } from '../../plan/limits.ts';
import { runMarginMb } from '../../plan/memory-budget.ts';
import { marker, pySpec } from '../../testing/python-containment.ts';

/** What the back-end under test enforces on this host (cases that need a missing piece are skipped). */
export interface RedTeamTarget {
  runner: () => Runner;
  /** Runs are in a memory cgroup. */
  cgroups: boolean;
  /** Runs get SysV limits and inode-capped tmpfs. */
  ipcAndInodeCaps: boolean;
  /** /dev/shm size of a run, MiB. */
  shmMb: number;
}

const never = new AbortController().signal;
const MEMORY_MB = 128;
const lastNumber = (out: RunOutcome) => Math.max(0, ...(out.run_result?.stdout ?? '').split('\n').map(Number).filter(Number.isFinite));

/** Host processes whose argv is exactly `sleep <m>`. */
function sleepers(m: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${m}\0`;
      } catch {
        return false;
      }
    });
}

/** Fds of a host process whose link target starts with `kind` (`pipe:`, `anon_inode:inotify`). */
function fdsOf(pid: number, kind: string): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(kind);
      } catch {
        return false;
      }
    }).length;
  } catch {
    return 0;
  }
}

/** Resolves once `ready()` holds, checking every event-loop turn; rejects after `timeoutMs` or when `lost` settles first. */
async function gate(ready: () => boolean, lost: Promise<unknown>, timeoutMs: number): Promise<void> {
  let settled = false;
  void lost.finally(() => (settled = true)).catch(() => {});
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (settled) throw new Error('the holding run ended before it was ready');
    if (performance.now() > deadline) throw new Error(`gate not open after ${timeoutMs} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

// Holds 128 inotify instances and 1,600 pipes (4 processes x 400: 25,600 pages, over
// pipe-user-pages-soft's 16,384), then becomes `sleep <marker>` with all of them open.
const HOLD_BUDGETS = (m: string) => `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while n < 128 and libc.inotify_init() >= 0:
    n += 1
for _ in range(3):
    if os.fork() == 0:
        break
for _ in range(400):
    os.pipe2(0)
os.execvp('sleep', ['sleep', '${m}'])`;

const PROBE_BUDGETS = `import ctypes, fcntl, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
print('inotify', 'ok' if fd >= 0 else ctypes.get_errno())
r, w = os.pipe()
print('pipe', fcntl.fcntl(w, 1032))`;

/** Starts a run that holds the per-user budgets and resolves once the host sees it holding them. */
export async function holdUserBudgets(runner: Runner): Promise<{ release: () => Promise<void> }> {
  const m = marker();
  const ac = new AbortController();
  const holding = runner.run(pySpec(HOLD_BUDGETS(m), { runTimeoutMs: 30_000 }), ac.signal);
  const full = () => {
    const pids = sleepers(m);
    return pids.length === 4 && fdsOf(pids[0]!, 'anon_inode:inotify') >= 128 && pids.reduce((n, p) => n + fdsOf(p, 'pipe:'), 0) >= 3200;
  };
  await gate(full, holding, 20_000);
  return {
    release: async () => {
      ac.abort(new Error('released'));
      await holding.catch(() => {});
    },
  };
}

/** Runs the budget probe: what a fresh run gets from inotify_init and as a pipe's size. */
export async function probeUserBudgets(runner: Runner): Promise<string> {
  const out = await runner.run(pySpec(PROBE_BUDGETS), never);
  return out.run_result?.stdout ?? '';
}

/** Registers the cases (call inside a describe). */
export function redTeamCases(t: RedTeamTarget): void {
  const run = (code: string, extra: Partial<RunSpec> = {}) => t.runner().run(pySpec(code, { memoryLimitMb: MEMORY_MB, runTimeoutMs: 20_000, ...extra }), never);
  // Everything one run's processes may hold together: its memory limit + the run margin.
  const capMb = MEMORY_MB + runMarginMb(MEMORY_MB);
  const noCgroup = !t.cgroups;

  it.skipIf(noCgroup)(
    `stops memfd files filled past the limit (768 MB asked, cap ${capMb} MB)`,
    async () => {
      // Three 16 MiB writes per file keep each under RLIMIT_FSIZE; the pages are shmem, outside RLIMIT_AS.
      const out = await run(`import os
chunk = b'\\1' * (16 << 20)
total, fds = 0, []
try:
    while total < (768 << 20):
        fd = os.memfd_create('x')
        fds.append(fd)
        for _ in range(3):
            os.write(fd, chunk)
            total += len(chunk)
            print(total >> 20, flush=True)
except OSError as e:
    print('error', e.errno, flush=True)`);
      expect(lastNumber(out)).toBeLessThan(capMb);
      // memfd is not address space: the run cgroup's OOM kill stops it, not an allocation failure.
      expect(out.run_result).toMatchObject({ status: 'Finished', return_code: -9, memory_limit_exceeded: true });
    },
    60_000,
  );

  it.skipIf(!t.ipcAndInodeCaps)(
    `caps detached SysV segments at the /dev/shm budget (512 MB asked, ${t.shmMb} MB allowed)`,
    async () => {
      const out = await run(`import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
size, held = 32 << 20, 0
for _ in range(16):
    sid = libc.shmget(0, size, 0o1600)
    if sid < 0:
        print('shmget errno', ctypes.get_errno(), flush=True)
        break
    addr = libc.shmat(sid, None, 0)
    ctypes.memset(addr, 1, size)
    libc.shmdt(addr)
    held += size
    print(held >> 20, flush=True)
for path in ('shmmax', 'shmall'):
    try:
        open('/proc/sys/kernel/' + path, 'w').write('18446744073692774399')
        print('raised', path)
    except OSError as e:
        print('cannot raise', path, e.errno)`);
      const stdout = out.run_result?.stdout ?? '';
      expect(lastNumber(out)).toBeLessThanOrEqual(t.shmMb);
      expect(stdout).toContain('shmget errno 28'); // ENOSPC: shmall reached
      expect(stdout).not.toContain('raised');
    },
    60_000,
  );

  it.skipIf(noCgroup)(
    `caps forked children as a whole: 6 x 100 MB asked, ${capMb} MB allowed`,
    async () => {
      // Each child is under RLIMIT_AS on its own; together 600 MiB. A child says 'a' once it holds
      // its 100 MiB, then answers one ping. Once every child has said 'a' or died (no more
      // allocations, so no more OOM kills), the parent pings those that said 'a': a live one
      // answers, a killed one's pipe ends (after its exit, however long that takes).
      const out = await run(`import os, time
kids = []
for _ in range(6):
    ping_r, ping_w = os.pipe()
    pong_r, pong_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in [ping_w, pong_r] + [f for k in kids for f in k]:
            os.close(fd)
        x = bytearray(100 << 20)
        for i in range(0, len(x), 4096):
            x[i] = 1
        os.write(pong_w, b'a')
        os.read(ping_r, 1)
        os.write(pong_w, b'o')
        while True:
            time.sleep(1)
    os.close(ping_r)
    os.close(pong_w)
    kids.append((ping_w, pong_r))
allocated = [k for k in kids if os.read(k[1], 1) == b'a']
alive = 0
for ping_w, pong_r in allocated:
    try:
        os.write(ping_w, b'p')
    except BrokenPipeError:
        continue
    alive += os.read(pong_r, 1) == b'o'
print('alive', alive, 'allocated', len(allocated), flush=True)`);
      const alive = Number(/alive (\d+)/.exec(out.run_result?.stdout ?? '')?.[1] ?? NaN);
      expect(alive * 100).toBeLessThanOrEqual(capMb);
      expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, memory_limit_exceeded: true });
    },
    60_000,
  );

  it.skipIf(noCgroup)('runs the program in its run cgroup, which it cannot leave for another', async () => {
    // Every cgroup.procs the sandbox shows: the program's own, and in the zygote the other run's, covered.
    const out = await run(`import glob
def memory():
    return [l for l in open('/proc/self/cgroup').read().splitlines() if ':memory:' in l][0]
before = memory()
for p in sorted(glob.glob('/run/sandbox/cgroup.procs*')):
    try:
        with open(p, 'w') as f:
            f.write('0')
    except OSError:
        pass
print(before)
print(memory())`);
    const [before, after] = (out.run_result?.stdout ?? '').trim().split('\n');
    expect(before).toMatch(/:memory:\/run[0-2]$/);
    expect(after).toBe(before);
  });

  it.skipIf(noCgroup)(
    `caps files written to /tmp (600 MB asked, ${capMb} MB allowed): tmpfs pages are the program's`,
    async () => {
      const out = await run(`import os
chunk = b'\\1' * (16 << 20)
held = 0
while held < (600 << 20):
    with open('/tmp/f%d' % held, 'wb') as f:
        for _ in range(3):
            f.write(chunk)
            f.flush()
            held += len(chunk)
            print(held >> 20, flush=True)`);
      expect(lastNumber(out)).toBeLessThan(capMb);
      expect(out.run_result).toMatchObject({ status: 'Finished', return_code: -9, memory_limit_exceeded: true });
    },
    60_000,
  );

  it.skipIf(!t.ipcAndInodeCaps)(
    `stops 300,000 empty files at the inode cap (${TMPFS_INODES.tmp})`,
    async () => {
      const out = await run(`n = 0
try:
    while n < 300000:
        open('/tmp/f%d' % n, 'w').close()
        n += 1
    print('created', n)
except OSError as e:
    print('stopped', n, e.errno)`);
      const [, count, errno] = /stopped (\d+) (\d+)/.exec(out.run_result?.stdout ?? '') ?? [];
      expect(Number(errno)).toBe(28);
      expect(Number(count)).toBeLessThanOrEqual(TMPFS_INODES.tmp);
    },
    60_000,
  );

  it('does not share inotify instances or pipe buffers with a concurrent run', async () => {
    const holder = await holdUserBudgets(t.runner());
    try {
      expect(await probeUserBudgets(t.runner())).toBe('inotify ok\npipe 65536\n');
    } finally {
      await holder.release();
    }
  }, 60_000);

  it('answers hello world within 2 s after the attacks', async () => {
    const started = performance.now();
    const out = await t.runner().run(pySpec('print("hello")'), never);
    expect(out.run_result).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello\n' });
    expect(performance.now() - started).toBeLessThan(2000);
  });
}
