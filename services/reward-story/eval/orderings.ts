import type { StoryScoreItem } from '../src/core/story-item.ts';
import type { ScenarioLang, ScenarioSplit, StoryScenario } from './scenario.ts';

/**
 * Turns scenarios into the items the service scores and the checks that read
 * the scores back: in every check the good reply must score strictly above one
 * bad reply. A tie fails, because a reward that cannot tell two replies apart
 * gives the policy nothing to learn from.
 */

/** The bad replies the good one is checked against. */
export const Ordering = {
  OffTopic: 'off_topic',
  Repetition: 'repetition',
  Generic: 'generic',
  ReferenceCopy: 'reference_copy',
  Malformed: 'malformed',
} as const;
/** One of {@link Ordering}. */
export type Ordering = (typeof Ordering)[keyof typeof Ordering];

/** Every ordering, in report order. */
export const ORDERINGS: readonly Ordering[] = Object.values(Ordering);

/** "good above `ordering`" in one scenario: indices into the item list. */
export interface OrderingCheck {
  scenarioId: string;
  lang: ScenarioLang;
  split: ScenarioSplit;
  ordering: Ordering;
  goodIndex: number;
  badIndex: number;
}

/** What {@link buildEvalBatch} returns: items in a fixed order and the checks over them. */
export interface EvalBatch {
  items: StoryScoreItem[];
  checks: OrderingCheck[];
}

/** The text of the bad reply `ordering` in a scenario, or undefined when the scenario has none. */
export function badReply(s: StoryScenario, ordering: Ordering): string | undefined {
  if (ordering === Ordering.ReferenceCopy) return s.context.target_response;
  return s.replies[ordering];
}

/**
 * One item per reply (good first, then each bad reply the scenario has), all
 * with the scenario's context and `data_source: "story"`, and one check per bad reply.
 */
export function buildEvalBatch(scenarios: readonly StoryScenario[]): EvalBatch {
  const items: StoryScoreItem[] = [];
  const checks: OrderingCheck[] = [];
  const push = (s: StoryScenario, text: string) => items.push({ data_source: 'story', solution_str: text, context: s.context }) - 1;
  for (const s of scenarios) {
    const goodIndex = push(s, s.replies.good);
    for (const ordering of ORDERINGS) {
      const bad = badReply(s, ordering);
      if (bad === undefined) continue;
      checks.push({ scenarioId: s.id, lang: s.lang, split: s.split, ordering, goodIndex, badIndex: push(s, bad) });
    }
  }
  return { items, checks };
}
