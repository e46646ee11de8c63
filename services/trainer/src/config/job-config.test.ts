import { describe, expect, it } from 'vitest';
import { problemsOf } from './testing/config-problems.ts';
import { parseRlJobConfig, validateRlJobConfig } from './index.ts';

const MINIMAL = 'data:\n  train_files: train.parquet\n';

describe('job config defaults', () => {
  it('fills verl defaults and the derived keys', () => {
    const c = parseRlJobConfig(MINIMAL);
    expect(c.data.train_files).toEqual(['train.parquet']);
    expect(c.data.val_files).toEqual([]);
    expect(c.data.prompt_key).toBe('prompt');
    expect(c.data.seed).toBe(1);
    expect(c.actor_rollout_ref.actor.optim).toEqual({
      lr: 1e-6,
      weight_decay: 0.01,
      betas: [0.9, 0.999],
      lr_scheduler_type: 'constant',
      lr_warmup_steps: -1,
      lr_warmup_steps_ratio: 0,
      min_lr_ratio: 0,
      num_cycles: 0.5,
    });
    expect(c.actor_rollout_ref.actor.clip_ratio_c).toBe(3);
    expect(c.actor_rollout_ref.actor.kl_loss_type).toBe('low_var_kl');
    expect(c.actor_rollout_ref.rollout.val_kwargs).toEqual({ temperature: 0, top_p: 1, top_k: -1, n: 1, do_sample: false });
    expect(c.algorithm).toMatchObject({
      adv_estimator: 'gae',
      gamma: 1,
      lam: 1,
      kl_penalty: 'kl',
      kl_ctrl: { type: 'fixed', kl_coef: 0.001, target_kl: 0.1, horizon: 10000 },
    });
    expect(c.critic).toMatchObject({ cliprange_value: 0.5, ppo_epochs: 1, ppo_mini_batch_size: 16, optim: { lr: 1e-5 } });
    expect(c.actor_rollout_ref.model.max_seq_len).toBe(c.data.max_prompt_length + c.data.max_response_length);
    expect(c.trainer.default_local_dir).toBe('.run/checkpoints/verl_examples/gsm8k');
    expect(c.trainer.resume_mode).toBe('auto');
    expect(c.reward.routes['arithmetic_sequence']).toBe('reward.rules.score');
    expect(c.rollout).toEqual({
      mode: 'remote',
      subject: 'rollout.generate',
      timeout_ms: 300_000,
      weights_bucket: 'rl-policy',
      weights_name: 'actor',
      weights_format: 'full',
    });
  });

  it('reads JSON as well as YAML, and a list of train files', () => {
    const c = parseRlJobConfig('{"data": {"train_files": ["a.parquet", "b.parquet"], "mix_weights": [3, 1]}}', { format: 'json' });
    expect(c.data.train_files).toEqual(['a.parquet', 'b.parquet']);
    expect(c.data.mix_weights).toEqual([3, 1]);
  });

  it('derives null clip ratios and critic sizes from the actor', () => {
    const c = parseRlJobConfig(
      `${MINIMAL}actor_rollout_ref:\n  actor:\n    clip_ratio: 0.3\n    clip_ratio_low: null\n    clip_ratio_high: 0.28\n    ppo_epochs: 2\n    ppo_mini_batch_size: 8\n`,
    );
    expect(c.actor_rollout_ref.actor.clip_ratio_low).toBe(0.3);
    expect(c.actor_rollout_ref.actor.clip_ratio_high).toBe(0.28);
    expect(c.critic.ppo_epochs).toBe(2);
    expect(c.critic.ppo_mini_batch_size).toBe(8);
  });

  it('merges reward routes over the built-in table; null removes an entry', () => {
    const c = parseRlJobConfig(`${MINIMAL}reward:\n  routes:\n    my_task: reward.custom.score\n    story: null\n    default: reward.sandbox.score\n`);
    expect(c.reward.routes['my_task']).toBe('reward.custom.score');
    expect(c.reward.routes['story']).toBeUndefined();
    expect(c.reward.routes['default']).toBe('reward.sandbox.score');
    expect(c.reward.routes['openai/gsm8k']).toBe('reward.rules.score');
  });
});

describe('job config errors', () => {
  it('lists every bad key at once, with what was expected and what was given', () => {
    const problems = problemsOf(() =>
      parseRlJobConfig(
        [
          'data:',
          '  train_files: a.parquet',
          '  train_batch_size: x',
          'actor_rollout_ref:',
          '  actor:',
          '    loss_agg_mode: mean',
          '    optim: {lr: -1}',
          'algorithm: {adv_estimator: ppo}',
          'trainer: {resume_mode: sometimes}',
        ].join('\n'),
      ),
    );
    expect(problems).toEqual([
      { path: 'data.train_batch_size', message: 'expected a positive integer, got "x"' },
      { path: 'actor_rollout_ref.actor.optim.lr', message: 'expected a positive number, got -1' },
      {
        path: 'actor_rollout_ref.actor.loss_agg_mode',
        message: 'expected one of "token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm", got "mean"',
      },
      { path: 'algorithm.adv_estimator', message: expect.stringMatching(/^expected one of "gae", "grpo", .*, got "ppo"$/) as unknown as string },
      { path: 'trainer.resume_mode', message: 'expected one of "auto", "disable", got "sometimes"' },
    ]);
  });

  it('puts every problem in the message, one per line', () => {
    expect(() => parseRlJobConfig('data: {train_files: a, shuffle: maybe, seed: 1.5}')).toThrow(
      /invalid job config:\n {2}data\.shuffle: expected true or false, got "maybe"\n {2}data\.seed: expected an integer or null, got 1\.5/,
    );
  });

  it('rejects unknown keys with the closest known key as a hint', () => {
    const problems = problemsOf(() => parseRlJobConfig('data: {train_files: a, trian_batch_size: 4, lr: 0.1}\ntrainer: {save_frequency: 3}\nfoo: 1'));
    expect(problems).toEqual([
      { path: 'data.trian_batch_size', message: 'unknown key; did you mean data.train_batch_size?' },
      { path: 'data.lr', message: 'unknown key here; did you mean actor_rollout_ref.actor.optim.lr or critic.optim.lr?' },
      { path: 'trainer.save_frequency', message: expect.stringContaining('unknown key (known keys here: total_epochs,') as unknown as string },
      { path: 'foo', message: 'unknown key (known keys here: kind, data, actor_rollout_ref, algorithm, critic, trainer, reward, rollout, reward_model)' },
    ]);
  });

  it('reports a missing required key and a section that is not a mapping', () => {
    expect(problemsOf(() => parseRlJobConfig('trainer: 3'))).toEqual([
      { path: 'data', message: 'missing; expected a mapping of keys to values' },
      { path: 'trainer', message: 'expected a mapping of keys to values, got 3' },
    ]);
    expect(problemsOf(() => parseRlJobConfig('data: {}'))).toEqual([
      { path: 'data.train_files', message: 'missing; expected a file path or a non-empty list of file paths' },
    ]);
  });

  it('checks rules that span keys once every key is well-typed', () => {
    const problems = problemsOf(() =>
      parseRlJobConfig(
        'data: {train_files: [a, b], mix_weights: [1], train_batch_size: 8, max_prompt_length: 100, max_response_length: 50}\n' +
          'actor_rollout_ref: {actor: {ppo_mini_batch_size: 16}, model: {d_model: 64, n_heads: 5, max_seq_len: 120}}',
      ),
    );
    expect(problems).toEqual([
      { path: 'data.mix_weights', message: 'expected one weight per train file (2), got [1]' },
      { path: 'actor_rollout_ref.actor.ppo_mini_batch_size', message: 'must be <= data.train_batch_size (8), got 16' },
      {
        path: 'actor_rollout_ref.model.n_heads',
        message: 'must divide actor_rollout_ref.model.d_model (64) unless actor_rollout_ref.model.head_dim is set, got 5',
      },
      { path: 'actor_rollout_ref.model.max_seq_len', message: 'must be >= data.max_prompt_length + data.max_response_length (150), got 120' },
    ]);
  });

  it('shapes a random model of the HF family (a tiny Qwen3 by default) and leaves the shape to a model directory', () => {
    const m = parseRlJobConfig(`${MINIMAL}actor_rollout_ref: {model: {architecture: LlamaForCausalLM, d_model: 64, n_heads: 4, n_kv_heads: 2, head_dim: 8}}`)
      .actor_rollout_ref.model;
    expect(m).toMatchObject({ architecture: 'LlamaForCausalLM', d_model: 64, n_heads: 4, n_kv_heads: 2, head_dim: 8 });
    expect(parseRlJobConfig(MINIMAL).actor_rollout_ref.model).toMatchObject({ architecture: 'Qwen3ForCausalLM', n_kv_heads: null, head_dim: null });
    expect(
      problemsOf(() => parseRlJobConfig(`${MINIMAL}actor_rollout_ref: {model: {architecture: GPT2LMHeadModel, n_heads: 4, n_kv_heads: 3, head_dim: 7}}`)),
    ).toEqual([
      {
        path: 'actor_rollout_ref.model.architecture',
        message: 'expected one of "LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", got "GPT2LMHeadModel"',
      },
    ]);
    expect(problemsOf(() => parseRlJobConfig(`${MINIMAL}actor_rollout_ref: {model: {n_heads: 4, n_kv_heads: 3, head_dim: 7}}`))).toEqual([
      { path: 'actor_rollout_ref.model.head_dim', message: 'the head width (7) must be even for RoPE, got 7' },
      { path: 'actor_rollout_ref.model.n_kv_heads', message: 'must divide actor_rollout_ref.model.n_heads (4), got 3' },
    ]);
    expect(problemsOf(() => parseRlJobConfig(`${MINIMAL}actor_rollout_ref: {model: {path: m, n_kv_heads: 2, tokenizer: byte}}`))).toEqual([
      {
        path: 'actor_rollout_ref.model.n_kv_heads',
        message: "must be null when actor_rollout_ref.model.path is set: the model directory's config.json defines the architecture, got 2",
      },
    ]);
  });

  it('rejects the KL estimators verl b178a3c raises NotImplementedError for: "full" and the straight-through names', () => {
    const problems = problemsOf(() => parseRlJobConfig(`${MINIMAL}algorithm: {kl_penalty: full}\nactor_rollout_ref: {actor: {kl_loss_type: low_var_kl+}}`));
    expect(problems.map((p) => p.path)).toEqual(['actor_rollout_ref.actor.kl_loss_type', 'algorithm.kl_penalty']);
    expect(problems[0]!.message).toMatch(
      /^a straight-through name: verl b178a3c passes "low_var_kl\+" to kl_penalty_forward unchanged and raises NotImplementedError; use "low_var_kl"/,
    );
    expect(problems[1]!.message).toMatch(/whole-vocabulary/);
    expect(problemsOf(() => parseRlJobConfig(`${MINIMAL}algorithm: {kl_penalty: k9}`))[0]!.message).toMatch(/^expected one of "kl", "k1", /);
    expect(parseRlJobConfig(`${MINIMAL}algorithm: {kl_penalty: k3}`).algorithm.kl_penalty).toBe('k3');
  });

  it('turns unreadable text into bad_request naming the source', () => {
    expect(() => parseRlJobConfig('data: [', { source: 'job.yaml' })).toThrow(/job\.yaml is not valid YAML/);
    expect(() => parseRlJobConfig('{', { format: 'json' })).toThrow(/job config is not valid JSON/);
    expect(problemsOf(() => validateRlJobConfig([1, 2]))).toEqual([
      { path: '(root)', message: 'expected a mapping of sections (data, actor_rollout_ref, ...)' },
    ]);
  });
});

describe('job config overrides', () => {
  it('applies --set overrides before validation, typed as YAML scalars', () => {
    const c = parseRlJobConfig(MINIMAL, {
      overrides: [
        'data.train_batch_size=8',
        'actor_rollout_ref.rollout.n=5',
        'algorithm.adv_estimator=grpo',
        'actor_rollout_ref.actor.optim.lr=1e-3',
        'data.val_files=[v1.parquet, v2.parquet]',
        '+reward.params.arithmetic_sequence.format_score=0.1',
      ],
    });
    expect(c.data.train_batch_size).toBe(8);
    expect(c.actor_rollout_ref.rollout.n).toBe(5);
    expect(c.algorithm.adv_estimator).toBe('grpo');
    expect(c.actor_rollout_ref.actor.optim.lr).toBe(1e-3);
    expect(c.data.val_files).toEqual(['v1.parquet', 'v2.parquet']);
    expect(c.reward.params).toEqual({ arithmetic_sequence: { format_score: 0.1 } });
  });

  it('validates overridden values like written ones', () => {
    expect(problemsOf(() => parseRlJobConfig(MINIMAL, { overrides: ['data.train_batch_size=x'] }))).toEqual([
      { path: 'data.train_batch_size', message: 'expected a positive integer, got "x"' },
    ]);
  });

  it('deletes keys with ~ so defaults come back', () => {
    const c = parseRlJobConfig(`${MINIMAL}  shuffle: false\n`, { overrides: ['~data.shuffle'] });
    expect(c.data.shuffle).toBe(true);
  });

  it('reports malformed overrides and overrides through a non-mapping', () => {
    expect(() => parseRlJobConfig(MINIMAL, { overrides: ['data.train_batch_size', '=3'] })).toThrow(
      /data\.train_batch_size: expected key\.path=value; =3: "" is not a dotted key path/,
    );
    expect(() => parseRlJobConfig(MINIMAL, { overrides: ['data.train_files.x=1'] })).toThrow(/data\.train_files is not a mapping/);
  });
});
