// Helpers shared by the benches: latency percentiles and timing, service settings for A/B runs.

/** The p-th percentile (0-100) of `xs`, nearest rank. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** Runs `f` `warmup` times (indices -1, -2, ...), then `n` times (0..n-1); returns the n durations in ms. */
export async function timeIt(n: number, f: (i: number) => Promise<unknown>, warmup = 5): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await f(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Extra service settings for an A/B run, `K=V,K=V` from `BENCH_SANDBOX_ENV` (e.g. SANDBOX_CONCURRENCY=2). */
export function sandboxEnvOverrides(): Record<string, string> {
  return Object.fromEntries(
    (process.env.BENCH_SANDBOX_ENV ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string]),
  );
}
