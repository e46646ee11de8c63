// Story signals (reward-story's `signals`): per reply token, log p(token |
// prompt with r) and its entropy from the old log-prob pass, and log p(token |
// prompt without r) from a second scoring of the same reply in the same
// worker request. Only the tokens the model produced (response mask 1) are
// sent, so each array has the reply's length as the reward sees it.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { DatasetRow } from '../../data/dataset-row.ts';
import type { RolloutResult, WithoutContextPass } from './ports.ts';

/** reward-story's StorySignals body. */
export interface StorySignals {
  logprobs_with_context: number[];
  logprobs_without_context: number[];
  entropies: number[];
}

/** What a step needs to compute signals. */
export interface SignalsContext {
  /** reward.signals: whether a row's data_source gets signals. */
  needs(dataSource: string): boolean;
  /** The row's prompt without r as token ids, chat template applied as for the prompt itself. */
  promptIds(row: DatasetRow): number[];
  /** The job's longest prompt without r, in tokens (the worker pads to quarter steps of it). */
  promptWidth: number;
}

/** The pass without r for the rollouts whose rows get signals; undefined when none does. */
export function withoutContextPass(ctx: SignalsContext, rows: readonly DatasetRow[], rollouts: readonly RolloutResult[]): WithoutContextPass | undefined {
  const entries: WithoutContextPass['entries'] = [];
  rollouts.forEach((r, index) => {
    const row = rows[r.row]!;
    if (ctx.needs(row.data_source)) entries.push({ index, prompt: ctx.promptIds(row) });
  });
  return entries.length === 0 ? undefined : { entries, promptWidth: ctx.promptWidth };
}

/** The signals of one reply: the values at its mask-1 tokens, in order. */
export function replySignals(
  mask: readonly number[],
  withContext: readonly number[],
  withoutContext: readonly number[],
  entropies: readonly number[],
): StorySignals {
  const out: StorySignals = { logprobs_with_context: [], logprobs_without_context: [], entropies: [] };
  mask.forEach((m, t) => {
    if (m <= 0) return;
    out.logprobs_with_context.push(withContext[t]!);
    out.logprobs_without_context.push(withoutContext[t]!);
    // A float32 entropy can come out a hair below 0; reward-story allows -0.001 but 0 is what it means.
    out.entropies.push(Math.max(0, entropies[t]!));
  });
  return out;
}

/** Signals per rollout (undefined for rollouts without), from the worker's reply to a request with `pass`. */
export function signalsOf(
  rollouts: readonly RolloutResult[],
  pass: WithoutContextPass,
  reply: { logprobs: number[][]; entropies?: number[][]; logprobsWithoutContext?: number[][] },
): Array<StorySignals | undefined> {
  const { entropies, logprobsWithoutContext: without } = reply;
  if (entropies === undefined || without === undefined || without.length !== pass.entries.length) {
    throw new AppError(
      ErrorCode.UpstreamError,
      `the policy worker's log-prob reply lacks the story signals it was asked for (${pass.entries.length} replies without r, got ${without?.length ?? 'none'})`,
    );
  }
  const out: Array<StorySignals | undefined> = rollouts.map(() => undefined);
  pass.entries.forEach(({ index }, k) => {
    out[index] = replySignals(rollouts[index]!.responseMask, reply.logprobs[index]!, without[k]!, entropies[index]!);
  });
  return out;
}
