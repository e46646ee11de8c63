import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_DIR, RewardStoryConfig, rewardSettings } from './config.ts';
import { DEFAULT_WEIGHTS } from './core/weights.ts';
import { DEFAULT_TUNING } from './core/tuning.ts';
import { expectAppError } from '@rl/service-kit/testing';

describe('RewardStoryConfig', () => {
  it('defaults to port 8103, the shipped model, the default weights and tuning', () => {
    const config = loadConfig(RewardStoryConfig, {});
    expect(config.PORT).toBe(8103);
    expect(config.STORY_MODEL_DIR).toBe(DEFAULT_MODEL_DIR);
    expect(DEFAULT_MODEL_DIR).toBe(join(dirname(dirname(fileURLToPath(import.meta.url))), 'models', 'default'));
    expect(rewardSettings(config)).toEqual({ weights: DEFAULT_WEIGHTS, tuning: DEFAULT_TUNING });
  });

  it('lays STORY_WEIGHTS over the defaults', () => {
    const config = loadConfig(RewardStoryConfig, { STORY_WEIGHTS: '{"format": 0.5, "entropy": 0}', STORY_RECENT_TURNS: '2' });
    expect(rewardSettings(config)).toEqual({ weights: { ...DEFAULT_WEIGHTS, format: 0.5, entropy: 0 }, tuning: { ...DEFAULT_TUNING, recentTurns: 2 } });
  });

  it('rejects bad weights, naming the variable and the key', () => {
    for (const [value, where] of [
      ['{format: 1}', 'STORY_WEIGHTS: must be JSON'],
      ['{"fluency": 1}', 'STORY_WEIGHTS'],
      ['{"format": -1}', 'STORY_WEIGHTS.format'],
      [JSON.stringify(Object.fromEntries(Object.keys(DEFAULT_WEIGHTS).map((k) => [k, 0]))), 'STORY_WEIGHTS: at least one weight'],
    ] as const) {
      const err = expectAppError(() => loadConfig(RewardStoryConfig, { STORY_WEIGHTS: value }));
      expect(err.code).toBe('invalid_config');
      expect(err.message).toContain(where);
    }
    expect(expectAppError(() => loadConfig(RewardStoryConfig, { STORY_COPY_COSINE: '1.5' })).message).toContain('STORY_COPY_COSINE');
  });
});
