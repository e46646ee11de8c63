// verl's own reward code, taken from a local git mirror of verl-project/verl
// (formerly volcengine/verl) at test time (never stored in this repository).
// Tests that need it skip with a clear reason when no mirror is available.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the mirror is looked for: `VERL_MIRROR`, else the workplace's fetched copy (the project's current name first). */
export const VERL_MIRROR =
  process.env.VERL_MIRROR ??
  ['/work/.mirror/verl-project+verl/repo', '/work/.mirror/volcengine+verl/repo'].find((dir) => existsSync(dir)) ??
  '/work/.mirror/verl-project+verl/repo';

/** Whether a verl mirror and the Python it needs are present. */
export function verlAvailable(): boolean {
  if (!existsSync(VERL_MIRROR) || !existsSync('/usr/bin/python3')) return false;
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import requests'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Copies verl's `sandbox_fusion` reward package into a temp dir and returns the dir for PYTHONPATH. */
export function extractSandboxFusionClient(): string {
  const dir = mkdtempSync(join(tmpdir(), 'verl-sf-'));
  mkdirSync(join(dir, 'sandbox_fusion'));
  for (const f of ['__init__.py', 'utils.py']) {
    const text = execFileSync('git', ['-C', VERL_MIRROR, 'show', `HEAD:verl/utils/reward_score/sandbox_fusion/${f}`], { encoding: 'utf8' });
    writeFileSync(join(dir, 'sandbox_fusion', f), text);
  }
  return dir;
}
