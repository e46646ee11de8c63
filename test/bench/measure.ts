// Timing of repeated calls for the FLOP/s benches (flops-bench.ts, engines-bench.ts):
// the first call (jit compilation, allocation) apart, then the fastest call (the least
// disturbed by other processes on a shared machine) and the median.
import { np } from '@rl/policy';
import { jit } from '@rl/policy/internal';
import { percentile } from './timing.ts';

/** CPU ms this process has used (all its threads). */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** What {@link measure} reports: wall ms of the first call, the fastest and median wall ms, and the least CPU ms of a call. */
export interface Measured {
  firstMs: number;
  ms: number;
  medianMs: number;
  /** The least CPU time of one timed call by `cpuClock`: on a loaded machine it moves far less than wall time. */
  cpuMs: number;
}

/** ms of the first call, then per call over `seconds` (at least 3 calls): wall time (fastest, median) and CPU time by `cpuClock`. */
export async function measure(run: () => Promise<unknown>, seconds: number, cpuClock: () => number = ownCpuMs): Promise<Measured> {
  const t0 = performance.now();
  await run();
  const firstMs = performance.now() - t0;
  const times: number[] = [];
  const cpu: number[] = [];
  const started = performance.now();
  while (performance.now() - started < seconds * 1000 || times.length < 3) {
    const c = cpuClock();
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
    cpu.push(cpuClock() - c);
  }
  return { firstMs, ms: Math.min(...times), medianMs: percentile(times, 50), cpuMs: Math.min(...cpu) };
}

/** A matmul's [m, k, n]. */
export type MatmulShape = [m: number, k: number, n: number];

/** One jit-compiled jax-js fp32 matmul's best GFLOP/s over `seconds` (at least 3 calls), by wall time and by CPU time. */
export async function jaxMatmul([m, k, n]: MatmulShape, seconds: number): Promise<{ gflops: number; cpuGflops: number }> {
  const f = jit((a: ReturnType<typeof np.ones>, b: ReturnType<typeof np.ones>) => np.matmul(a, b));
  const a = np.ones([m, k]);
  const b = np.ones([k, n]);
  const { ms, cpuMs } = await measure(async () => f(a.ref, b.ref).data(), seconds);
  a.dispose();
  b.dispose();
  f.dispose();
  return { gflops: (2 * m * k * n) / ms / 1e6, cpuGflops: (2 * m * k * n) / cpuMs / 1e6 };
}
