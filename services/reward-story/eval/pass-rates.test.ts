import { describe, expect, it } from 'vitest';
import { Ordering, type OrderingCheck } from './orderings.ts';
import { computeReport, formatReport } from './pass-rates.ts';

const check = (lang: 'zh' | 'en', ordering: OrderingCheck['ordering'], goodIndex: number, badIndex: number): OrderingCheck => ({
  scenarioId: `${lang}-01`,
  lang,
  split: 'dev',
  ordering,
  goodIndex,
  badIndex,
});

describe('computeReport', () => {
  const checks = [
    check('zh', Ordering.OffTopic, 0, 1), // 0.6 > 0.5: pass
    check('zh', Ordering.Generic, 0, 2), // 0.6 = 0.6: a tie fails
    check('en', Ordering.OffTopic, 3, 4), // 0.2 < 0.3: fail
    check('en', Ordering.Generic, 3, 5), // 0.2 > 0.1: pass
  ];
  const scores = [0.6, 0.5, 0.6, 0.2, 0.3, 0.1];

  it('counts strict wins per ordering and language; ties fail', () => {
    const r = computeReport(checks, scores);
    expect(r.overall).toEqual({ all: { passed: 2, total: 4, rate: 0.5 }, zh: { passed: 1, total: 2, rate: 0.5 }, en: { passed: 1, total: 2, rate: 0.5 } });
    expect(r.byOrdering.off_topic).toEqual({
      all: { passed: 1, total: 2, rate: 0.5 },
      zh: { passed: 1, total: 1, rate: 1 },
      en: { passed: 0, total: 1, rate: 0 },
    });
    expect(r.byOrdering.malformed.all).toEqual({ passed: 0, total: 0, rate: null });
    expect(r.failures.map((f) => [f.scenarioId, f.ordering, f.goodScore, f.badScore])).toEqual([
      ['zh-01', 'generic', 0.6, 0.6],
      ['en-01', 'off_topic', 0.2, 0.3],
    ]);
  });

  it('refuses a score list that does not cover the checks', () => {
    expect(() => computeReport(checks, scores.slice(0, 5))).toThrow(RangeError);
  });

  it('prints one row per ordering and an overall row', () => {
    const lines = formatReport('dev', computeReport(checks, scores)).split('\n');
    expect(lines[0]).toBe('dev');
    expect(lines[1]).toMatch(/^good reply above\s+all\s+zh\s+en$/);
    expect(lines.find((l) => l.startsWith('off_topic'))).toMatch(/50% \(1\/2\)\s+100% \(1\/1\)\s+0% \(0\/1\)$/);
    expect(lines.find((l) => l.startsWith('malformed'))).toMatch(/—\s+—\s+—$/);
    expect(lines.at(-1)).toMatch(/^every ordering\s+50% \(2\/4\)/);
  });
});
