import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit';
import { expectAppError } from '@rl/service-kit/testing';
import { validateJobConfig } from './index.ts';
import { assertJobPaths, jobPaths, pathProblems, withPaths, type PathRoots } from './path-roots.ts';

const ROOTS: PathRoots = { base: '/srv/rl', data: ['/srv/rl', '/data/sets'], model: ['/srv/rl', '/models'], output: '/srv/rl/.run' };

const rl = (over: { data?: object; model?: object; critic?: object; trainer?: object } = {}) =>
  validateJobConfig({
    data: { train_files: '.run/demo/data/train.parquet', ...over.data },
    actor_rollout_ref: { model: { ...over.model } },
    critic: { ...over.critic },
    trainer: { default_local_dir: '.run/job', ...over.trainer },
  });

const problems = (c: ReturnType<typeof rl>) => pathProblems(c, ROOTS);

describe('job paths and their keys', () => {
  it('lists every path of an RL job with its key and use', () => {
    const c = rl({
      data: { train_files: ['a.parquet', 'b.parquet'], val_files: 'v.parquet' },
      model: { tokenizer: 'tok.json' },
      critic: { model: { path: '/models/critic' } },
      trainer: { validation_data_dir: '.run/job/val', rollout_data_dir: '.run/job/rollouts' },
    });
    expect(jobPaths(c).map((p) => [p.key, p.access])).toEqual([
      ['data.train_files[0]', 'data'],
      ['data.train_files[1]', 'data'],
      ['data.val_files', 'data'],
      ['actor_rollout_ref.model.tokenizer', 'model'],
      ['critic.model.path', 'model'],
      ['trainer.default_local_dir', 'output'],
      ['trainer.validation_data_dir', 'output'],
      ['trainer.rollout_data_dir', 'output'],
    ]);
    expect(jobPaths(rl({ model: { tokenizer: 'byte' } })).map((p) => p.key)).not.toContain('actor_rollout_ref.model.tokenizer');
  });

  it("lists an SFT job's data, starting weights and output", () => {
    const c = validateJobConfig({ kind: 'sft', data: { train_files: 's.parquet' }, model: { partial_pretrain: '/models/base' } });
    expect(jobPaths(c).map((p) => p.key)).toEqual(['data.train_files', 'model.partial_pretrain', 'trainer.default_local_dir']);
    expect(c.trainer.default_local_dir).toMatch(/^\.run\/checkpoints\//); // inside the default output root
    expect(problems(c as ReturnType<typeof rl>)).toEqual([]);
  });

  it('replaces the listed paths in a copy', () => {
    const c = rl({ data: { train_files: ['a.parquet', 'b.parquet'] } });
    const out = withPaths(c, [
      { at: ['data', 'train_files', 1], value: '/real/b.parquet' },
      { at: ['trainer', 'default_local_dir'], value: '/real/job' },
    ]);
    expect(out.data.train_files).toEqual(['a.parquet', '/real/b.parquet']);
    expect(out.trainer.default_local_dir).toBe('/real/job');
    expect(c.trainer.default_local_dir).toBe('.run/job');
  });
});

describe('paths stay inside the roots', () => {
  it('accepts relative and absolute paths inside their roots; reads reach the output root', () => {
    expect(problems(rl({ data: { train_files: ['/data/sets/gsm8k/train.parquet', 'fixtures/x.parquet'] }, model: { path: '.run/sft' } }))).toEqual([]);
    expect(problems(rl({ model: { path: '/models/base.safetensors' }, trainer: { default_local_dir: '/srv/rl/.run' } }))).toEqual([]);
  });

  it('refuses /etc/passwd as data, naming the key and the setting', () => {
    expect(problems(rl({ data: { train_files: '/etc/passwd' } }))).toEqual([
      {
        path: 'data.train_files',
        message: "/etc/passwd is outside the data roots or the output root (/srv/rl, /data/sets, /srv/rl/.run; the trainer's TRAINER_DATA_ROOTS)",
      },
    ]);
  });

  it('refuses ".." segments even when they would land inside a root', () => {
    for (const bad of ['../../etc/passwd', '.run/../.run/demo/x.parquet', 'a/..\\b.parquet', '..']) {
      const [p] = problems(rl({ data: { val_files: bad } }));
      expect(p?.path).toBe('data.val_files');
      expect(p?.message).toMatch(/^"\.\.": paths may not climb out/);
    }
  });

  it('refuses outputs outside the output root, models outside the model roots', () => {
    const found = problems(
      rl({
        model: { path: '/etc' },
        critic: { model: { path: '/data/sets/critic' } },
        trainer: { default_local_dir: '/tmp/evil', validation_data_dir: 'checkpoints/x', rollout_data_dir: '/srv/rl/.running' },
      }),
    );
    expect(found.map((p) => p.path)).toEqual([
      'actor_rollout_ref.model.path',
      'critic.model.path',
      'trainer.default_local_dir',
      'trainer.validation_data_dir',
      'trainer.rollout_data_dir',
    ]);
    expect(found[2]?.message).toBe("/tmp/evil is outside the output root (/srv/rl/.run; the trainer's TRAINER_OUTPUT_ROOT)");
    expect(found[3]?.message).toMatch(/^\/srv\/rl\/checkpoints\/x is outside the output root/);
  });

  it('throws one 400 listing every bad key', () => {
    const err = expectAppError(
      () => assertJobPaths(rl({ data: { train_files: '/etc/passwd' }, trainer: { default_local_dir: '/tmp/evil' } }), ROOTS),
      ErrorCode.ValidationFailed,
    );
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^invalid job config:\n {2}data\.train_files: .*\n {2}trainer\.default_local_dir: /);
    expect(err.details?.['problems']).toHaveLength(2);
  });
});
