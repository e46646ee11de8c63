import { describe, expect, it } from 'vitest';
import { buildDiscriminationBatch, computeDiscrimination, formatDiscrimination } from './discrimination.ts';
import { scenario } from './testing/scenario.ts';

const three = [scenario(), scenario({ id: 'en-02' }), scenario({ id: 'zh-01', lang: 'zh' })];

describe('buildDiscriminationBatch', () => {
  it('scores each good reply against every same-language user input, then every story, leaving one component to apply', () => {
    const { items, rows } = buildDiscriminationBatch(three);
    // en: 2 × 2 pairs, zh: 1 × 1, for each of the two targets.
    expect(items).toHaveLength(10);
    expect(rows.map((r) => [r.lang, r.target, r.ownIndex, r.otherIndices])).toEqual([
      ['en', 'user_input', 0, [1]],
      ['en', 'user_input', 3, [2]],
      ['zh', 'user_input', 4, []],
      ['en', 'story', 5, [6]],
      ['en', 'story', 8, [7]],
      ['zh', 'story', 9, []],
    ]);
    expect(items[0]!.context).toEqual({ story_content: '', conversation_history: [], user_input: three[0]!.context.user_input });
    expect(items[5]!.context).toEqual({ story_content: three[0]!.context.story_content, conversation_history: [], user_input: '' });
  });
});

describe('computeDiscrimination', () => {
  it('is the share of (own, other) pairs won by the own context, ties half; null without pairs', () => {
    const { rows } = buildDiscriminationBatch(three);
    // user_input: en-01 own 0.5 > 0.2 (win), en-02 own 0.3 = 0.3 (tie); story: both lost.
    const scores = [0.5, 0.2, 0.3, 0.3, 0.9, 0.1, 0.4, 0.6, 0.0, 0.7];
    const d = computeDiscrimination(rows, scores);
    expect(d).toEqual({ en: { user_input: 0.75, story: 0 }, zh: { user_input: null, story: null } });
    expect(formatDiscrimination(d).split('\n').slice(1)).toEqual(['target      zh    en', 'user_input  —     0.75', 'story       —     0.00']);
    expect(() => computeDiscrimination(rows, scores.slice(0, 3))).toThrow(RangeError);
  });
});
