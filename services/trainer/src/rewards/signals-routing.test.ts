import { describe, expect, it } from 'vitest';
import { DEFAULT_REWARD_ROUTES } from '@rl/client';
import { signalsPredicate } from './signals-routing.ts';

describe('signalsPredicate (reward.signals)', () => {
  it('by default gives signals to the sources routed to the story reward, and only those', () => {
    const auto = signalsPredicate({ ...DEFAULT_REWARD_ROUTES, 'roleplay*': 'reward.story.score' }, null);
    expect(['story', 'roleplay/zh', 'openai/gsm8k', 'unknown'].map(auto)).toEqual([true, true, false, false]);
  });

  it('true and false override the routes', () => {
    expect(signalsPredicate(DEFAULT_REWARD_ROUTES, true)('openai/gsm8k')).toBe(true);
    expect(signalsPredicate(DEFAULT_REWARD_ROUTES, false)('story')).toBe(false);
  });
});
