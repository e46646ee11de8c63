import type { z } from 'zod';

/** What one scorer returns for one item: the reward and what it saw. */
export interface ScoreOutcome {
  /** The reward, exactly the float verl's function returns. */
  score: number;
  /** Diagnostics a trainer can log or plot (e.g. `acc`, `pred`). JSON-serialisable. */
  extra: Record<string, unknown>;
}

/** Input of a scorer, already validated at the edge. */
export interface ScorerInput<P> {
  solution: string;
  /** Raw `ground_truth` from the request: verl passes strings, lists or `{target: [...]}` objects. */
  groundTruth: unknown;
  /** verl keyword options, parsed by the scorer's own `params` schema (defaults = verl's). */
  params: P;
  extraInfo: Record<string, unknown> | undefined;
}

/** One rule reward: a pure, synchronous function of its input. */
export interface Scorer<P = unknown> {
  /** Stable name, e.g. `gsm8k`, `math_reward`, `math_dapo`. */
  readonly name: string;
  /** zod schema of `params`; unknown keys are rejected, defaults equal verl's. */
  readonly params: z.ZodType<P>;
  score(input: ScorerInput<P>): ScoreOutcome;
}
