import type { StoryScoreItem } from '../src/core/story-item.ts';
import type { ScenarioLang, StoryScenario } from './scenario.ts';

/**
 * Context discrimination: does the reward see that a good reply belongs to its
 * own scenario? Each good reply is scored against the user input (and, apart,
 * the story) of every scenario of its language; the figure is the share of
 * (own, other) pairs where its own context scores higher, ties counting half
 * (an AUC: 0.5 is blind, 1 is perfect). Orderings can be won by a model that
 * lifts every similarity alike; this figure cannot, so the two are read together.
 */

/** The context part a pair compares with. */
export const DISCRIMINATION_TARGETS = ['user_input', 'story'] as const;
/** One of {@link DISCRIMINATION_TARGETS}. */
export type DiscriminationTarget = (typeof DISCRIMINATION_TARGETS)[number];

/** Item indices of one good reply against one target: its own context and every other scenario's. */
export interface DiscriminationRow {
  lang: ScenarioLang;
  target: DiscriminationTarget;
  ownIndex: number;
  otherIndices: number[];
}

/**
 * Items whose only applicable component is relevance (user input alone) or
 * coherence (story alone), so each item's score is that cosine, clamped at 0.
 */
export function buildDiscriminationBatch(scenarios: readonly StoryScenario[]): { items: StoryScoreItem[]; rows: DiscriminationRow[] } {
  const items: StoryScoreItem[] = [];
  const rows: DiscriminationRow[] = [];
  const contextOf = (s: StoryScenario, target: DiscriminationTarget) =>
    target === 'user_input'
      ? { story_content: '', conversation_history: [], user_input: s.context.user_input }
      : { story_content: s.context.story_content, conversation_history: [], user_input: '' };
  for (const target of DISCRIMINATION_TARGETS) {
    for (const s of scenarios) {
      const row: DiscriminationRow = { lang: s.lang, target, ownIndex: -1, otherIndices: [] };
      for (const t of scenarios) {
        if (t.lang !== s.lang) continue;
        const index = items.push({ data_source: 'story', solution_str: s.replies.good, context: contextOf(t, target) }) - 1;
        if (t === s) row.ownIndex = index;
        else row.otherIndices.push(index);
      }
      rows.push(row);
    }
  }
  return { items, rows };
}

/** AUC per language and target; null where a language has fewer than two scenarios. */
export function computeDiscrimination(
  rows: readonly DiscriminationRow[],
  scores: readonly number[],
): Record<ScenarioLang, Record<DiscriminationTarget, number | null>> {
  const at = (i: number) => {
    const s = scores[i];
    if (s === undefined) throw new RangeError(`no score for item ${i}: ${scores.length} scores`);
    return s;
  };
  const auc = (lang: ScenarioLang, target: DiscriminationTarget): number | null => {
    let wins = 0;
    let pairs = 0;
    for (const r of rows) {
      if (r.lang !== lang || r.target !== target) continue;
      const own = at(r.ownIndex);
      for (const o of r.otherIndices) {
        const other = at(o);
        wins += own > other ? 1 : own === other ? 0.5 : 0;
        pairs++;
      }
    }
    return pairs === 0 ? null : wins / pairs;
  };
  return {
    zh: { user_input: auc('zh', 'user_input'), story: auc('zh', 'story') },
    en: { user_input: auc('en', 'user_input'), story: auc('en', 'story') },
  };
}

/** The figures as a small text table. */
export function formatDiscrimination(d: Record<ScenarioLang, Record<DiscriminationTarget, number | null>>): string {
  const cell = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  return [
    "context discrimination (AUC: good reply nearer its own user input / story than other scenarios'; 0.5 = blind)",
    `target      zh    en`,
    ...DISCRIMINATION_TARGETS.map((t) => `${t.padEnd(10)}  ${cell(d.zh[t]).padEnd(4)}  ${cell(d.en[t])}`),
  ].join('\n');
}
