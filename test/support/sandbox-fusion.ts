// SandboxFusion's own runner tests (sandbox/tests/runners/test_*.py), taken from
// a local git mirror of bytedance/SandboxFusion at test time (never stored in
// this repository) and run unchanged by pytest against a running reward-sandbox:
// sandbox_fusion_shim/ stands in for the SandboxFusion modules they import, and
// its TestClient posts to our /run_code. Tests skip with a reason when no
// mirror or no pytest is present.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the mirror is looked for: `SANDBOX_FUSION_MIRROR`, else the workplace's fetched copy. */
export const SANDBOX_FUSION_MIRROR = process.env.SANDBOX_FUSION_MIRROR ?? '/work/.mirror/bytedance+SandboxFusion/repo';
const PYTHON = '/usr/bin/python3';
const SHIM = join(import.meta.dirname, 'sandbox_fusion_shim');
const RUNNERS = 'sandbox/tests/runners';

/**
 * Runner test files that do not test `/run_code` on a CPU host: cuda and
 * python_gpu need a GPU, jupyter is SandboxFusion's `/run_jupyter` endpoint.
 */
const NOT_RUN_CODE = new Set(['test_cuda.py', 'test_python_gpu.py', 'test_jupyter.py']);
/** Test file -> the language it exercises, where the file name does not say it exactly. */
const FILE_LANGUAGE: Readonly<Record<string, string>> = { test_r: 'R', test_d_ut: 'D_ut', test_isolation: 'python' };

/** One runner test file of the mirror. */
export interface RunnerTestFile {
  file: string;
  language: string;
}

/** Why the runner tests cannot run here, or null when they can. */
export function sandboxFusionUnavailable(): string | null {
  if (!existsSync(SANDBOX_FUSION_MIRROR)) return `no SandboxFusion mirror at ${SANDBOX_FUSION_MIRROR} (SANDBOX_FUSION_MIRROR)`;
  try {
    execFileSync(PYTHON, ['-c', 'import pytest'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'no pytest for /usr/bin/python3 (python3-pytest)';
  }
}

function mirrorFiles(): string[] {
  return execFileSync('git', ['-C', SANDBOX_FUSION_MIRROR, 'ls-tree', '-r', '--name-only', 'HEAD', RUNNERS], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** The mirror's `/run_code` runner test files and their languages. */
export function runnerTestFiles(): RunnerTestFile[] {
  return mirrorFiles()
    .map((p) => p.slice(RUNNERS.length + 1))
    .filter((f) => /^test_\w+\.py$/.test(f) && !NOT_RUN_CODE.has(f))
    .map((file) => {
      const stem = file.slice(0, -3);
      return { file, language: FILE_LANGUAGE[stem] ?? stem.slice(5) };
    });
}

/** Outcome of one test, keyed `test_x.py::test_name`. */
export interface RunnerOutcome {
  outcome: 'passed' | 'failed' | 'skipped';
  message: string;
}

/**
 * Extracts the given test files (and the samples they read) from the mirror into
 * a temp dir and runs them with pytest against `url`. Resolves with every
 * test's outcome; rejects when pytest itself could not run them.
 */
export async function runRunnerTests(url: string, files: readonly string[], timeoutMs: number): Promise<Record<string, RunnerOutcome>> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-fusion-runners-'));
  try {
    for (const path of mirrorFiles()) {
      const rel = path.slice(RUNNERS.length + 1);
      if (!files.includes(rel) && !rel.startsWith('samples/')) continue;
      mkdirSync(join(dir, dirname(rel)), { recursive: true });
      writeFileSync(join(dir, rel), execFileSync('git', ['-C', SANDBOX_FUSION_MIRROR, 'show', `HEAD:${path}`], { maxBuffer: 64 << 20 }));
    }
    const results = join(dir, 'results.json');
    const args = ['-m', 'pytest', '-p', 'sandbox_fusion_plugin', '-p', 'no:cacheprovider', '-q', '--rootdir', dir, ...files.map((f) => join(dir, f))];
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PYTHONPATH: SHIM,
      SANDBOX_FUSION_URL: url,
      SANDBOX_FUSION_RESULTS: results,
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(PYTHON, args, { env, cwd: dir, timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, output: `${stdout}${stderr}` });
      });
    });
    // pytest: 0 all passed, 1 some failed; anything else (2-5, a kill) means it did not run the tests.
    if ((run.code !== 0 && run.code !== 1) || !existsSync(results)) throw new Error(`pytest exited ${run.code}: ${run.output.slice(-4000)}`);
    return JSON.parse(readFileSync(results, 'utf8')) as Record<string, RunnerOutcome>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
