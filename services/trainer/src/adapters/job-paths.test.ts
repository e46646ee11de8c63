// openJobPaths on a real directory tree with symbolic links. Ownership (the
// run-as user) is proven end to end by test/trainer-paths.test.ts, where the
// trainer runs as its own root process: switching ids here would switch the
// test runner's.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit';
import { expectAppError } from '@rl/service-kit/testing';
import { validateRlJobConfig } from '../config/index.ts';
import type { PathRoots } from '../config/path-roots.ts';
import { openJobPaths, setUpRoots } from './job-paths.ts';

let dir: string;
let outside: string;
let roots: PathRoots;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'rl-job-paths-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'rl-job-paths-outside-')));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'train.parquet'), 'PAR1');
  writeFileSync(join(outside, 'secret.json'), '{"secret": "do not show"}');
  symlinkSync(join(outside, 'secret.json'), join(dir, 'data', 'tok.json'));
  symlinkSync(outside, join(dir, 'data', 'elsewhere'));
  roots = setUpRoots({ base: dir, data: [join(dir, 'data')], model: [join(dir, 'data')], output: join(dir, 'out') }, null);
  symlinkSync(outside, join(roots.output, 'escape'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const job = (data: object, model: object, trainer: object) =>
  validateRlJobConfig({
    data: { train_files: 'data/train.parquet', ...data },
    actor_rollout_ref: { model },
    trainer: { default_local_dir: 'out/job', ...trainer },
  });

describe('openJobPaths', () => {
  it('creates the output root at start and resolves paths to their real locations, creating output directories', () => {
    expect(statSync(roots.output).isDirectory()).toBe(true);
    const c = openJobPaths(job({}, {}, { validation_data_dir: 'out/job/val' }), roots, null);
    expect(c.data.train_files).toEqual([join(dir, 'data', 'train.parquet')]);
    expect(c.trainer.default_local_dir).toBe(join(roots.output, 'job'));
    expect(c.trainer.validation_data_dir).toBe(join(roots.output, 'job', 'val'));
    expect(statSync(join(roots.output, 'job', 'val')).isDirectory()).toBe(true);
  });

  it('refuses a symbolic link out of a root, naming the key and never the contents', () => {
    const err = expectAppError(() => openJobPaths(job({}, { tokenizer: 'data/tok.json' }, {}), roots, null), ErrorCode.ValidationFailed);
    expect(err.message).toContain('actor_rollout_ref.model.tokenizer: ');
    expect(err.message).toContain('leads out of its roots through a symbolic link');
    expect(err.message).not.toContain('do not show');
    const viaDir = expectAppError(() => openJobPaths(job({ val_files: 'data/elsewhere/secret.json' }, {}, {}), roots, null), ErrorCode.ValidationFailed);
    expect(viaDir.message).toMatch(/^invalid job config:\n {2}data\.val_files: /);
  });

  it('refuses an output directory below a link out of the output root, creating nothing there', () => {
    const err = expectAppError(() => openJobPaths(job({}, {}, { default_local_dir: 'out/escape/job' }), roots, null), ErrorCode.ValidationFailed);
    expect(err.message).toContain('trainer.default_local_dir: ');
    expect(statSync(join(outside, 'job'), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('names the key of a missing file', () => {
    const err = expectAppError(() => openJobPaths(job({ train_files: 'data/nope.parquet' }, {}, {}), roots, null), ErrorCode.BadRequest);
    expect(err.message).toBe(`data.train_files: ${join(dir, 'data', 'nope.parquet')}: no such file or directory`);
  });

  it('checks the roots again (a config that skipped the submission check)', () => {
    const err = expectAppError(() => openJobPaths(job({ train_files: '/etc/passwd' }, {}, {}), roots, null), ErrorCode.ValidationFailed);
    expect(err.message).toMatch(/data\.train_files: \/etc\/passwd is outside the data roots/);
  });
});
