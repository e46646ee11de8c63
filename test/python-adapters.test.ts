// The Python reward adapters (shared/python: verl, EasyR1, TRL, AReaL, slime's group function, plus verl's
// reward loop and OpenRLHF's and slime's own client code from local mirrors; those skip without one) run
// with Debian's python3 against a real reward-rules process.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';
import { VERL_MIRROR } from './support/verl.ts';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const PACKAGE_DIR = join(ROOT, 'shared/python');

let nats: NatsServer;
let rules: ServiceProcess;

beforeAll(async () => {
  nats = await startNatsServer();
  rules = await startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' });
});
afterAll(async () => {
  await rules?.stop();
  await nats?.stop();
});

describe.skipIf(!existsSync(PYTHON))('python adapters against reward-rules', () => {
  it('pass their unittest suite', async () => {
    const env = { ...process.env, RL_REWARDS_TEST_URL: rules.baseUrl, VERL_MIRROR, PYTHONDONTWRITEBYTECODE: '1' };
    // The torch engine's tests (scoring, training, LoRA) start several child engines and train tiny models.
    const result = await run(PYTHON, ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], { cwd: PACKAGE_DIR, env, timeout: 240_000 }).catch(
      (err: { stdout?: string; stderr?: string; code?: number }) => err,
    );
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    expect(output, output).toMatch(/\nOK/);
    expect(output).toMatch(/Ran \d+ tests/);
  }, 300_000);

  it('install with pip from the repository path and import as a package', async () => {
    const work = mkdtempSync(join(tmpdir(), 'rl-rewards-pip-'));
    try {
      // A copy, so the build leaves nothing in the tree; no index and no isolation: offline, with Debian's setuptools.
      cpSync(PACKAGE_DIR, join(work, 'src'), { recursive: true, filter: (p) => !p.includes('__pycache__') });
      await run(
        PYTHON,
        ['-m', 'pip', 'install', '--quiet', '--no-build-isolation', '--no-deps', '--no-index', '--target', join(work, 'site'), join(work, 'src')],
        { timeout: 120_000 },
      );
      const { stdout } = await run(
        PYTHON,
        [
          '-I',
          '-c',
          'import sys; sys.path.insert(0, sys.argv[1]); import rl_rewards.verl, rl_rewards.trl, rl_rewards.easyr1, rl_rewards.areal; print(rl_rewards.verl.__file__)',
          join(work, 'site'),
        ],
        { cwd: '/', timeout: 60_000 },
      );
      expect(stdout.trim()).toBe(join(work, 'site/rl_rewards/verl.py'));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
