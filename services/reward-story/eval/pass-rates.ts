import { ORDERINGS, type Ordering, type OrderingCheck } from './orderings.ts';

/**
 * Pass rates of ordering checks, per ordering and per language, from the
 * scores the service gave the batch's items.
 */

/** Columns of the report: every scenario, then each language alone. */
export const LANG_COLUMNS = ['all', 'zh', 'en'] as const;
/** One of {@link LANG_COLUMNS}. */
export type LangColumn = (typeof LANG_COLUMNS)[number];

/** Checks passed out of those run; `rate` is null when none ran. */
export interface PassRate {
  passed: number;
  total: number;
  rate: number | null;
}

/** A check that failed, with both scores. */
export interface FailedCheck extends OrderingCheck {
  goodScore: number;
  badScore: number;
}

/** Pass rates overall and per ordering, each for every language column. */
export interface EvalReport {
  overall: Record<LangColumn, PassRate>;
  byOrdering: Record<Ordering, Record<LangColumn, PassRate>>;
  failures: FailedCheck[];
}

function rateOf(results: ReadonlyArray<{ check: OrderingCheck; passed: boolean }>, lang: LangColumn): PassRate {
  const inColumn = results.filter((r) => lang === 'all' || r.check.lang === lang);
  const passed = inColumn.filter((r) => r.passed).length;
  return { passed, total: inColumn.length, rate: inColumn.length === 0 ? null : passed / inColumn.length };
}

function byLang(results: ReadonlyArray<{ check: OrderingCheck; passed: boolean }>): Record<LangColumn, PassRate> {
  return { all: rateOf(results, 'all'), zh: rateOf(results, 'zh'), en: rateOf(results, 'en') };
}

/** Evaluates each check against `scores` (one per batch item): passed when the good reply scores strictly higher. */
export function computeReport(checks: readonly OrderingCheck[], scores: readonly number[]): EvalReport {
  const scoreAt = (i: number) => {
    const s = scores[i];
    if (s === undefined) throw new RangeError(`no score for item ${i}: ${scores.length} scores`);
    return s;
  };
  const results = checks.map((check) => {
    const goodScore = scoreAt(check.goodIndex);
    const badScore = scoreAt(check.badIndex);
    return { check, goodScore, badScore, passed: goodScore > badScore };
  });
  const byOrdering = Object.fromEntries(ORDERINGS.map((o) => [o, byLang(results.filter((r) => r.check.ordering === o))])) as Record<
    Ordering,
    Record<LangColumn, PassRate>
  >;
  return {
    overall: byLang(results),
    byOrdering,
    failures: results.filter((r) => !r.passed).map((r) => ({ ...r.check, goodScore: r.goodScore, badScore: r.badScore })),
  };
}

const cell = (r: PassRate) => (r.rate === null ? '—' : `${(100 * r.rate).toFixed(0)}% (${r.passed}/${r.total})`);

/** The report as a plain-text table: one row per ordering plus the overall row. */
export function formatReport(title: string, report: EvalReport): string {
  const rows: string[][] = [['good reply above', ...LANG_COLUMNS]];
  for (const o of ORDERINGS) rows.push([o, ...LANG_COLUMNS.map((l) => cell(report.byOrdering[o][l]))]);
  rows.push(['every ordering', ...LANG_COLUMNS.map((l) => cell(report.overall[l]))]);
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((v, c) => v.padEnd(widths[c]!))
      .join('  ')
      .trimEnd();
  return [title, ...rows.map(line)].join('\n');
}
