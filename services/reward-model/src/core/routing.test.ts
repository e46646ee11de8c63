import { describe, expect, it } from 'vitest';
import type { RewardBackend } from './backend.ts';
import { buildRoutes, routeItem } from './routing.ts';

const backend = (name: string, kind: RewardBackend['kind']): RewardBackend => ({
  name,
  kind,
  score: async (items) => items.map(() => ({ score: 0 })),
  ready: () => true,
  close: async () => {},
});
const RM = backend('rm', 'reward_model');
const JUDGE = backend('quality', 'judge');
const routes = buildRoutes([RM, JUDGE], { gsm8k: 'rm', '*': 'quality' });

describe('routeItem', () => {
  it('takes params.model or params.judge first, then the data source, then the default `*`', () => {
    expect(routeItem(routes, 'chat', { model: 'rm' })).toBe(RM);
    expect(routeItem(routes, 'gsm8k', { judge: 'quality' })).toBe(JUDGE);
    expect(routeItem(routes, 'gsm8k', undefined)).toBe(RM);
    expect(routeItem(routes, 'anything', {})).toBe(JUDGE);
  });

  it('refuses unknown names, a name of the other kind, both keys, and non-strings, naming the field', () => {
    expect(() => routeItem(routes, 'x', { model: 'nope' })).toThrow('params.model: no reward model named "nope" (configured: rm)');
    expect(() => routeItem(routes, 'x', { model: 'quality' })).toThrow('params.model: no reward model named "quality"');
    expect(() => routeItem(routes, 'x', { judge: 'rm' })).toThrow('params.judge: no judge named "rm" (configured: quality)');
    expect(() => routeItem(routes, 'x', { model: 'rm', judge: 'quality' })).toThrow('not both');
    expect(() => routeItem(routes, 'x', { model: 3 })).toThrow('params.model: must be a backend name');
  });

  it('an unmapped data source without a default is unknown_data_source; with no backends at all the message says what to configure', () => {
    const noDefault = buildRoutes([RM], { gsm8k: 'rm' });
    expect(() => routeItem(noDefault, 'math', undefined)).toThrow(
      expect.objectContaining({ code: 'unknown_data_source', message: expect.stringContaining('"math"') }),
    );
    const none = buildRoutes([], {});
    expect(() => routeItem(none, 'math', { model: 'rm' })).toThrow(
      expect.objectContaining({ code: 'unknown_data_source', message: expect.stringContaining('REWARD_MODELS') }),
    );
  });

  it('buildRoutes refuses a route to an unconfigured backend and a name used twice', () => {
    expect(() => buildRoutes([RM], { gsm8k: 'judge' })).toThrow('REWARD_ROUTES: gsm8k=judge: no backend named "judge" (configured: rm)');
    expect(() => buildRoutes([RM, backend('rm', 'judge')], {})).toThrow('backend name "rm" is used by two backends');
  });
});
