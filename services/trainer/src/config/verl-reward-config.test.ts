import { describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit';
import { rewardClientOptions } from '../rewards/from-config.ts';
import type { ScoreTransport } from '@rl/client';
import { compatKeysSet } from './compat-keys.ts';
import { problemsOf } from './testing/config-problems.ts';
import { parseRlJobConfig } from './index.ts';

const MINIMAL = 'data: {train_files: train.parquet}\n';

/** verl's reward section as its 2026 trainer config writes it, pointed at rl_rewards.verl, with our keys beside it. */
const VERL_REWARD = `${MINIMAL}reward:
  retries: 5
  num_workers: 8
  custom_reward_function:
    path: pkg://rl_rewards.verl
    name: compute_score_async
    reward_kwargs: {url: "http://reward-rules:8101", auth_token: s3cret, batch_window_ms: 5, params: {method: flexible}}
  reward_manager: {source: register, name: naive, module: {path: null, name: custom_reward_manager}}
  reward_model: {enable: false, enable_resource_pool: false, n_gpus_per_node: 8, nnodes: 0, model_path: null, rollout: {name: vllm, dtype: bfloat16}}
  sandbox_fusion: {url: null, max_concurrent: 64, memory_limit_mb: 512}
  max_concurrent: 1
  timeout: 300.0
`;

describe("verl's reward.* keys next to ours", () => {
  it('are accepted; the ignored ones are listed with their reasons', () => {
    const c = parseRlJobConfig(VERL_REWARD);
    expect(c.reward.retries).toBe(5);
    const listed = compatKeysSet(c);
    expect(listed.map((k) => k.key)).toEqual([
      'reward.num_workers',
      'reward.custom_reward_function.path',
      'reward.custom_reward_function.name',
      'reward.custom_reward_function.reward_kwargs.url',
      'reward.custom_reward_function.reward_kwargs.auth_token',
      'reward.custom_reward_function.reward_kwargs.batch_window_ms',
      'reward.reward_manager.source',
      'reward.reward_manager.name',
      'reward.reward_manager.module.path',
      'reward.reward_manager.module.name',
      'reward.reward_model.enable_resource_pool',
      'reward.reward_model.n_gpus_per_node',
      'reward.reward_model.nnodes',
      'reward.reward_model.rollout',
      'reward.sandbox_fusion.url',
      'reward.sandbox_fusion.max_concurrent',
      'reward.max_concurrent',
      'reward.timeout',
    ]);
    expect(listed.every((k) => k.reason.length > 0)).toBe(true);
  });

  it('reward_kwargs.params reaches every subject and memory_limit_mb the sandbox, under reward.params', () => {
    const c = parseRlJobConfig(`${VERL_REWARD.replace('retries: 5', 'params: {openai/gsm8k: {method: strict}}')}`);
    const transport: ScoreTransport = async () => ({ results: [] });
    const o = rewardClientOptions(c.reward, transport, createRng(1));
    expect(o.subjectParams).toEqual({
      'reward.rules.score': { method: 'flexible' },
      'reward.sandbox.score': { method: 'flexible', memory_limit_mb: 512 },
      'reward.story.score': { method: 'flexible' },
    });
    expect(o.defaultParams).toEqual({ 'openai/gsm8k': { method: 'strict' } });
    expect(rewardClientOptions(parseRlJobConfig(MINIMAL).reward, transport, createRng(1)).subjectParams).toEqual({});
  });

  it('refuses what would change the rewards if ignored, naming the key', () => {
    const problems = problemsOf(() =>
      parseRlJobConfig(`${MINIMAL}reward:
  custom_reward_function: {path: /home/me/my_reward.py, name: my_score}
  reward_manager: {source: importlib, name: dapo, module: {path: my_manager.py}}
`),
    );
    expect(problems.map((p) => p.path)).toEqual([
      'reward.custom_reward_function.path',
      'reward.custom_reward_function.name',
      'reward.reward_manager.source',
      'reward.reward_manager.name',
      'reward.reward_manager.module.path',
    ]);
    expect(problems[0]!.message).toMatch(/^expected pkg:\/\/rl_rewards\.verl .* cannot run another Python function/);
    expect(problems[3]!.message).toMatch(/^expected one of "naive", "batch", "rate_limited": .*dapo/);
  });

  it('accepts rl_rewards.verl by file path too, and an unknown verl sub-key gets a hint', () => {
    const c = parseRlJobConfig(`${MINIMAL}reward: {custom_reward_function: {path: /opt/rl/shared/python/rl_rewards/verl.py, name: compute_score}}`);
    expect(c.reward.custom_reward_function?.path).toBe('/opt/rl/shared/python/rl_rewards/verl.py');
    const problems = problemsOf(() => parseRlJobConfig(`${MINIMAL}reward: {sandbox_fusion: {memory_limit: 512}}`));
    expect(problems).toEqual([
      { path: 'reward.sandbox_fusion.memory_limit', message: expect.stringMatching(/^unknown key.*memory_limit_mb/) as unknown as string },
    ]);
  });
});
