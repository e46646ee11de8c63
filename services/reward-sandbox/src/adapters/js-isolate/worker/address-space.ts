// The worker's memory backstop. A program's memory is capped by its isolate's
// limit (heap and ArrayBuffers; the isolate has no WebAssembly, whose memories V8
// maps outside that limit); each worker process also gets an address-space
// rlimit (RLIMIT_AS) that counts everything it maps. Why RLIMIT_AS
// and not a memory cgroup: it works on every host and as any user, and a worker
// serves many runs, so it cannot sit in one run's slot cgroup (SANDBOX_CGROUPS
// covers the native back-ends).
//
// V8 reserves far more address space than it touches (each isolate ~0.6 GiB of
// code range and heap reservations; Node's own TypeScript stripper keeps a 4 GiB
// WebAssembly memory reserved), so no fixed figure fits every Node build. The
// service measures instead: a worker reports its VmSize once it is ready (one
// prepared isolate, nothing run yet), and its limit is that baseline plus the
// worker's memory bucket (memory.ts) plus a margin (thread stacks, malloc arenas,
// IPC buffers, the copied input and output): whatever might escape the isolate's
// limit stays within that, and only in the worker.

import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { JsWorkerError, JsWorkerErrorCode } from './errors.ts';

const MIB = 1024 * 1024;
const PRLIMIT_CANDIDATES = ['/usr/bin/prlimit', '/bin/prlimit', '/usr/sbin/prlimit', '/sbin/prlimit'];

/** Current address-space size (VmSize) of a process, in bytes. */
export function readVmSizeBytes(pid: number | 'self' = 'self'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmSize:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmSize in /proc/${pid}/status`);
  return Number(kib) * 1024;
}

/** RLIMIT_AS for a worker whose idle address space is `baselineBytes`. */
export function addressSpaceLimitBytes(baselineBytes: number, memoryMb: number, marginMb: number): number {
  return baselineBytes + (memoryMb + marginMb) * MIB;
}

/** The prlimit(1) binary, or undefined when util-linux is not installed. */
export function findPrlimit(): string | undefined {
  return PRLIMIT_CANDIDATES.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Options of {@link applyAddressSpaceLimit}. */
export interface LimitOptions {
  prlimitPath: string;
  timeoutMs: number;
}

/** Sets soft and hard RLIMIT_AS of a running process (raising it again would need CAP_SYS_RESOURCE). */
export function applyAddressSpaceLimit(pid: number, bytes: number, { prlimitPath, timeoutMs }: LimitOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const limit = String(Math.floor(bytes));
    const child = spawn(prlimitPath, [`--pid=${pid}`, `--as=${limit}:${limit}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      signal: AbortSignal.timeout(timeoutMs),
      killSignal: 'SIGKILL',
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-1000)));
    const fail = (why: string, cause?: unknown) =>
      reject(new JsWorkerError(JsWorkerErrorCode.LimitFailed, `cannot limit worker ${pid} to ${limit} bytes: ${why}`, { cause }));
    child.once('error', (err) => fail(err.message, err));
    child.once('close', (code, signal) => (code === 0 ? resolve() : fail(`prlimit exited ${signal ?? code}: ${stderr.trim()}`)));
  });
}
