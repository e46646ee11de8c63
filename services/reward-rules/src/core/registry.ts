// verl `default_compute_score` dispatch (verl/utils/reward_score/__init__.py)
// with the same data_source names. verl checks `startswith("aime")` before the
// later exact names; none of those starts with "aime", so exact-then-prefix
// lookup picks the same branch.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Scorer } from './scorer.ts';
import { arithmeticSequenceScorer } from './scorers/arithmetic-sequence.ts';
import { geo3kScorer } from './scorers/geo3k.ts';
import { gsm8kScorer } from './scorers/gsm8k.ts';
import { mathDapoScorer } from './scorers/math-dapo.ts';
import { mathRewardScorer } from './scorers/math-reward.ts';
import { qaEmScorer } from './scorers/qa-em.ts';
import { qaSubemScorer } from './scorers/qa-subem.ts';
import { SANDBOX_SCORE_SUBJECT } from '../subjects.ts';

/** Every local scorer by its stable name. */
export const SCORERS: Readonly<Record<string, Scorer>> = Object.freeze(
  Object.fromEntries([gsm8kScorer, mathRewardScorer, mathDapoScorer, qaEmScorer, qaSubemScorer, geo3kScorer, arithmeticSequenceScorer].map((s) => [s.name, s])),
);

/** Where a data_source is scored: a local scorer, or another service's subject. */
export type Route = { readonly kind: 'local'; readonly scorer: Scorer } | { readonly kind: 'remote'; readonly subject: string };

const REMOTE_SANDBOX: Route = { kind: 'remote', subject: SANDBOX_SCORE_SUBJECT };

function local(scorer: Scorer): Route {
  return { kind: 'local', scorer };
}

function names(route: Route, ...dataSources: string[]): Array<[string, Route]> {
  return dataSources.map((ds) => [ds, route]);
}

// verl's numina_* sources (prime_math) are not ported and resolve as unknown.
const EXACT: ReadonlyMap<string, Route> = new Map([
  ...names(local(gsm8kScorer), 'openai/gsm8k'),
  ...names(local(mathRewardScorer), 'lighteval/MATH', 'DigitalLearningGmbH/MATH-lighteval', 'HuggingFaceH4/MATH-500'),
  ...names(local(mathDapoScorer), 'math_dapo', 'math', 'math_dapo_reasoning'),
  ...names(REMOTE_SANDBOX, 'codecontests', 'apps', 'codeforces', 'taco'),
  ...names(local(geo3kScorer), 'hiyouga/geometry3k'),
  // Not in verl's default_compute_score: its e2e digit-completion task, which `make run` trains on.
  ...names(local(arithmeticSequenceScorer), 'arithmetic_sequence'),
  ...names(
    local(qaEmScorer),
    'searchR1_nq',
    'searchR1_triviaqa',
    'searchR1_popqa',
    'searchR1_hotpotqa',
    'searchR1_2wikimultihopqa',
    'searchR1_musique',
    'searchR1_bamboogle',
  ),
]);

// verl: `data_source.startswith("aime")` (aime2024, aime2025, ...).
const PREFIXES: ReadonlyArray<readonly [string, Route]> = [['aime', local(mathDapoScorer)]];

/** verl `default_compute_score`'s choice for a data_source; unknown names throw a 400 AppError. */
export function resolveDataSource(dataSource: string): Route {
  const exact = EXACT.get(dataSource);
  if (exact !== undefined) return exact;
  for (const [prefix, route] of PREFIXES) if (dataSource.startsWith(prefix)) return route;
  throw new AppError(ErrorCode.UnknownDataSource, `reward function is not implemented for data_source "${dataSource}"`, {
    details: { data_source: dataSource },
  });
}

function routeName(route: Route): string {
  return route.kind === 'local' ? route.scorer.name : route.subject;
}

/** The dispatch table for clients: exact names and prefixes with their scorer (or remote subject). */
export function listDataSources(): {
  data_sources: Array<{ data_source: string; scorer: string }>;
  prefixes: Array<{ prefix: string; scorer: string }>;
} {
  return {
    data_sources: [...EXACT].map(([dataSource, route]) => ({ data_source: dataSource, scorer: routeName(route) })),
    prefixes: PREFIXES.map(([prefix, route]) => ({ prefix, scorer: routeName(route) })),
  };
}
