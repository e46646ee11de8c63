import { describe, expect, it } from 'vitest';
import { rewardModelName } from '../rewards/reward-model-name.ts';
import { problemsOf } from './testing/config-problems.ts';
import { parseRlJobConfig } from './index.ts';

const MINIMAL = 'data: {train_files: train.parquet}\n';

describe("verl's reward model keys", () => {
  it('the 2026 spelling and the older top-level one select the same model, named by the basename of its path', () => {
    const now = parseRlJobConfig(`${MINIMAL}reward: {reward_model: {enable: true, model_path: /models/FsfairX-LLaMA3-RM/}}`);
    const old = parseRlJobConfig(`${MINIMAL}reward_model: {enable: true, model: {path: /models/FsfairX-LLaMA3-RM/}}`);
    expect(now.reward.reward_model).toEqual({ enable: true, model_path: '/models/FsfairX-LLaMA3-RM/' });
    expect(old.reward.reward_model).toEqual(now.reward.reward_model);
    expect('reward_model' in old).toBe(false);
    expect(rewardModelName(old.reward.reward_model)).toBe('FsfairX-LLaMA3-RM');
  });

  it('the older spelling wins where both set a key (verl migrate_legacy_reward_impl); reward.reward_model.name names the model', () => {
    const c = parseRlJobConfig(`${MINIMAL}reward: {reward_model: {enable: false, model_path: a/rm-a, name: my-rm}}
reward_model: {enable: true, model: {path: b/rm-b}}`);
    expect(c.reward.reward_model).toEqual({ enable: true, model_path: 'b/rm-b', name: 'my-rm' });
    expect(rewardModelName(c.reward.reward_model)).toBe('my-rm');
    expect(rewardModelName(parseRlJobConfig(`${MINIMAL}reward: {reward_model: {enable: false, model_path: a/rm}}`).reward.reward_model)).toBeNull();
    expect(rewardModelName(parseRlJobConfig(MINIMAL).reward.reward_model)).toBeNull();
  });

  it('an enabled model without a path or name, or next to a custom reward function, is refused naming the key', () => {
    expect(problemsOf(() => parseRlJobConfig(`${MINIMAL}reward_model: {enable: true}`))).toEqual([
      { path: 'reward.reward_model.model_path', message: expect.stringMatching(/expected the reward model's path/) as unknown as string },
    ]);
    const both = problemsOf(() =>
      parseRlJobConfig(`${MINIMAL}reward: {reward_model: {enable: true, model_path: rm}, custom_reward_function: {path: pkg://rl_rewards.verl}}`),
    );
    expect(both).toEqual([
      {
        path: 'reward.custom_reward_function.path',
        message: expect.stringMatching(/^expected null with reward.reward_model.enable true/) as unknown as string,
      },
    ]);
    expect(problemsOf(() => parseRlJobConfig(`${MINIMAL}reward_model: {enable: true, model: {paht: rm}}`))[0]!.path).toBe('reward_model.model.paht');
  });

  it('names the model by reward.reward_model.name, else the basename of model_path', () => {
    expect(rewardModelName({ enable: true, model_path: 'sfairXC/FsfairX-LLaMA3-RM-v0.1' })).toBe('FsfairX-LLaMA3-RM-v0.1');
    expect(rewardModelName({ enable: true, model_path: '/m/rm//', name: 'x' })).toBe('x');
    expect(rewardModelName({ enable: true, model_path: '/m/rm//' })).toBe('rm');
    expect(rewardModelName({ enable: false, model_path: '/m/rm' })).toBeNull();
    expect(rewardModelName(undefined)).toBeNull();
  });
});
