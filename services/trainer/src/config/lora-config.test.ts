// verl's LoRA keys (actor_rollout_ref.model.lora_rank, lora_alpha, target_modules) and rollout.weights_format:
// defaults, refusals naming the key, and what reaches the worker spec.
import { arithmeticTokenizer } from '@rl/policy';
import { describe, expect, it } from 'vitest';
import { planRlJob } from '../plan/rl-plan.ts';
import { problemsOf } from './testing/config-problems.ts';
import { validateRlJobConfig } from './index.ts';

const FACTS = { baseDir: '/jobs', tokenizer: arithmeticTokenizer().config, modelDir: null, criticModelDir: null, longestPromptTokens: 20 };
const config = (model: Record<string, unknown>, rollout: Record<string, unknown> = {}) =>
  validateRlJobConfig({ data: { train_files: 'train.parquet' }, actor_rollout_ref: { model }, rollout });

describe('LoRA keys', () => {
  it("default to verl's: rank 0 (off), alpha 16, all-linear; no LoRA reaches the worker and full weights are published", () => {
    const c = config({});
    expect(c.actor_rollout_ref.model).toMatchObject({ lora_rank: 0, lora_alpha: 16, target_modules: 'all-linear' });
    const spec = planRlJob(c, FACTS).spec;
    expect(spec.lora).toBeUndefined();
    expect(spec.weights.format).toBe('full');
  });

  it('reach the worker spec with rank > 0, and the adapter is published with weights_format: adapter', () => {
    const spec = planRlJob(
      config({ lora_rank: 8, lora_alpha: 32, target_modules: ['q_proj', 'model.layers.0.mlp.down_proj'] }, { weights_format: 'adapter' }),
      FACTS,
    ).spec;
    expect(spec.lora).toEqual({ rank: 8, alpha: 32, target_modules: ['q_proj', 'model.layers.0.mlp.down_proj'] });
    expect(spec.weights.format).toBe('adapter');
  });

  it('are refused by key when malformed', () => {
    const keys = (model: Record<string, unknown>, rollout: Record<string, unknown> = {}) =>
      problemsOf(() => config(model, rollout)).map((p) => [p.path, p.message]);
    expect(keys({ lora_rank: -1 })).toEqual([['actor_rollout_ref.model.lora_rank', expect.stringContaining('non-negative integer')]]);
    expect(keys({ lora_rank: 8, lora_alpha: 0 })).toEqual([['actor_rollout_ref.model.lora_alpha', expect.stringContaining('positive number')]]);
    expect(keys({ lora_rank: 8, target_modules: ['q_proj', 'qkv_proj'] })).toEqual([
      ['actor_rollout_ref.model.target_modules[1]', expect.stringContaining('not a Linear module of the decoder layers (q_proj, k_proj')],
    ]);
    expect(keys({ lora_rank: 8, target_modules: 'attention' })).toEqual([
      ['actor_rollout_ref.model.target_modules', expect.stringContaining('expected "all-linear" or a list of module names')],
    ]);
    expect(keys({ lora_rank: 8, target_modules: [] })).toEqual([['actor_rollout_ref.model.target_modules', expect.stringContaining('expected "all-linear"')]]);
    expect(keys({}, { weights_format: 'adapter' })).toEqual([['rollout.weights_format', expect.stringContaining('set actor_rollout_ref.model.lora_rank > 0')]]);
  });
});
