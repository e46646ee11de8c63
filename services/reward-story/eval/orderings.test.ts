import { describe, expect, it } from 'vitest';
import { buildEvalBatch, Ordering, ORDERINGS } from './orderings.ts';
import { scenario } from './testing/scenario.ts';

describe('buildEvalBatch', () => {
  it('scores the good reply once and checks it against every bad reply the scenario has', () => {
    const s = scenario();
    const {
      context: { output_format: _f, ...plainContext },
      replies: { malformed: _m, ...plainReplies },
    } = s;
    const plain = scenario({ id: 'en-02', split: 'test', context: plainContext, replies: plainReplies });
    const { items, checks } = buildEvalBatch([s, plain]);

    expect(items.map((i) => i.solution_str)).toEqual([
      s.replies.good,
      s.replies.off_topic,
      s.replies.repetition,
      s.replies.generic,
      s.context.target_response,
      s.replies.malformed,
      plain.replies.good,
      plain.replies.off_topic,
      plain.replies.repetition,
      plain.replies.generic,
      plain.context.target_response,
    ]);
    expect(items.every((i, n) => i.data_source === 'story' && i.context === (n < 6 ? s.context : plain.context))).toBe(true);
    expect(checks.filter((c) => c.scenarioId === 'en-01').map((c) => [c.ordering, c.goodIndex, c.badIndex])).toEqual(ORDERINGS.map((o, i) => [o, 0, i + 1]));
    expect(checks.filter((c) => c.scenarioId === 'en-02').map((c) => c.ordering)).not.toContain(Ordering.Malformed);
    expect(checks.find((c) => c.scenarioId === 'en-02')).toMatchObject({ lang: 'en', split: 'test', goodIndex: 6 });
  });
});
