import { loadConfig } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { RewardModelConfig } from './config.ts';

describe('RewardModelConfig', () => {
  it('starts with nothing configured', () => {
    const c = loadConfig(RewardModelConfig, {});
    expect([c.PORT, c.REWARD_MODELS, c.REWARD_ROUTES, c.REWARD_JUDGES_FILE]).toEqual([8106, [], {}, undefined]);
  });

  it('reads REWARD_MODELS (name=DIR, name=torch:DIR, name=onnx:DIR) and REWARD_ROUTES (data_source=name, *=name)', () => {
    const c = loadConfig(RewardModelConfig, { REWARD_MODELS: 'rm=/m/a, big=torch:/m/b,j=jax:/m/c,o=onnx:/m/d', REWARD_ROUTES: 'openai/gsm8k=rm,*=big' });
    expect(c.REWARD_MODELS).toEqual([
      { name: 'rm', dir: '/m/a', engine: 'jax' },
      { name: 'big', dir: '/m/b', engine: 'torch' },
      { name: 'j', dir: '/m/c', engine: 'jax' },
      { name: 'o', dir: '/m/d', engine: 'onnx' },
    ]);
    expect(c.REWARD_ROUTES).toEqual({ 'openai/gsm8k': 'rm', '*': 'big' });
  });

  it('refuses malformed entries naming the key', () => {
    expect(() => loadConfig(RewardModelConfig, { REWARD_MODELS: '/m/a' })).toThrow(/REWARD_MODELS: "\/m\/a": each entry is name=DIR/);
    expect(() => loadConfig(RewardModelConfig, { REWARD_MODELS: 'a=/x,a=/y' })).toThrow('REWARD_MODELS: a: named twice');
    expect(() => loadConfig(RewardModelConfig, { REWARD_ROUTES: 'gsm8k' })).toThrow(/REWARD_ROUTES: "gsm8k": each entry is data_source=backend/);
    expect(() => loadConfig(RewardModelConfig, { REWARD_MODEL_TORCH_DEVICE: 'tpu' })).toThrow(/REWARD_MODEL_TORCH_DEVICE/);
  });
});
