// `make bench` (sandbox languages part): hello world per language through the
// bubblewrap runner (compile + run, as one request sees it) next to the bare
// toolchain doing the same compile and run in a host temp dir, same machine,
// same run. The difference is what the sandbox costs per language.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_NODE, SANDBOX_NODE_PACKAGES } from '../../services/reward-sandbox/src/adapters/native/bubblewrap/argv.ts';
import { BwrapRunner } from '../../services/reward-sandbox/src/adapters/native/bubblewrap/bubblewrap-runner.ts';
import { LANGUAGES } from '../../services/reward-sandbox/src/adapters/native/languages/index.ts';
import { PROGRAMS } from '../../services/reward-sandbox/src/adapters/native/languages/testing/programs.ts';
import { testRunSpec } from '../../services/reward-sandbox/src/core/testing/run-spec.ts';
import { percentile } from './timing.ts';

const RUNS = Number(process.env.BENCH_LANGUAGE_RUNS ?? 10);
// BENCH_LANGUAGES=csharp,scala: only those (default: every language this host runs).
const ONLY = process.env.BENCH_LANGUAGES?.split(',').filter((l) => l !== '');
const HELLO: Record<string, string> = {
  python: 'print("hello")',
  bash: 'echo hello',
  cpp: '#include <cstdio>\nint main() { puts("hello"); }',
  nodejs: 'console.log("hello")',
  ...Object.fromEntries(Object.entries(PROGRAMS).map(([l, p]) => [l, p.hello])),
};

const runner = new BwrapRunner({ nodePath: process.execPath, cgroups: false });
const never = new AbortController().signal;
const packages = runner.host.layout.nodePackagesHostPath;
const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(10);

/** The same commands on the host, no sandbox (the toolchain's own time). */
function bare(language: string, code: string): number {
  const lang = LANGUAGES[language]!;
  const dir = mkdtempSync(join(tmpdir(), 'lang-bench-'));
  try {
    const source = lang.fileName ?? `hello${lang.suffix ?? `.${lang.extension}`}`;
    writeFileSync(join(dir, source), lang.prepareCode?.(code, runner.host.tools) ?? code);
    const ctx = { source, memoryLimitMb: 256, tools: runner.host.tools, inputs: [] };
    const t = performance.now();
    for (const step of [lang.compile?.(ctx), lang.run(ctx)]) {
      if (step === undefined) continue;
      // The sandbox's node path is a bind of this process's binary, its npm packages (jest) of the host's package dir.
      const cmd = step.argv[0] === SANDBOX_NODE ? process.execPath : step.argv[0]!;
      const args = step.argv
        .slice(1)
        .map((a) => (packages !== undefined && a.startsWith(SANDBOX_NODE_PACKAGES) ? packages + a.slice(SANDBOX_NODE_PACKAGES.length) : a));
      const nodePath = packages === undefined ? {} : { NODE_PATH: join(packages, 'node_modules') };
      const r = spawnSync(cmd, args, {
        cwd: dir,
        env: { PATH: '/usr/bin:/bin', HOME: dir, ...nodePath, ...step.env, GOCACHE: join(dir, '.cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (r.status !== 0) throw new Error(`${language}: bare ${step.argv[0]} failed: ${r.stderr}`);
    }
    return performance.now() - t;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`hello world, compile + run, p50 of ${RUNS} sequential runs`);
console.log(`${'language'.padEnd(14)}${'sandbox'.padStart(10)}${'bare'.padStart(10)}`);
for (const language of runner.languages()) {
  const code = HELLO[language];
  if (code === undefined || (ONLY !== undefined && !ONLY.includes(language))) continue;
  const sandboxed: number[] = [];
  const host: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const out = await runner.run(testRunSpec(language, code, { compileTimeoutMs: 30_000, runTimeoutMs: 10_000, memoryLimitMb: 256 }), never);
    sandboxed.push(performance.now() - t);
    if (out.run_result?.stdout !== 'hello\n') throw new Error(`${language}: ${JSON.stringify(out)}`);
    host.push(bare(language, code));
  }
  console.log(`${language.padEnd(14)}${ms(percentile(sandboxed, 50))}${ms(percentile(host, 50))}`);
}
runner.close();
