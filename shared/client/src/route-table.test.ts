import { describe, expect, it } from 'vitest';
import { DEFAULT_REWARD_ROUTES } from './default-routes.ts';
import { compileRoutes, resolveRoute } from './route-table.ts';

describe('default reward routes', () => {
  const table = compileRoutes(DEFAULT_REWARD_ROUTES);
  it.each([
    ['openai/gsm8k', 'reward.rules.score'],
    ['lighteval/MATH', 'reward.rules.score'],
    ['aime2024', 'reward.rules.score'],
    ['arithmetic_sequence', 'reward.rules.score'],
    ['searchR1_nq', 'reward.rules.score'],
    ['codecontests', 'reward.sandbox.score'],
    ['taco', 'reward.sandbox.score'],
    ['story', 'reward.story.score'],
    ['something/else', 'reward.rules.score'],
  ])('%s → %s', (dataSource, subject) => {
    expect(resolveRoute(table, dataSource)).toBe(subject);
  });

  it('has no fallback when default is removed', () => {
    expect(resolveRoute(compileRoutes({ story: 'reward.story.score' }), 'x')).toBeUndefined();
  });
});
