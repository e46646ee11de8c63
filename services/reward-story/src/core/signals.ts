import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { StorySignals } from './story-item.ts';
import { mean } from './vector-math.ts';

/** Per-reply means of the trainer's per-token signals; undefined when not given (or zero tokens). */
export interface SignalSummary {
  /** Mean over reply tokens of log p(token | with r) - log p(token | without r), in nats. */
  infoGainNats: number | undefined;
  /** Mean next-token entropy over reply tokens, in nats. */
  entropyNats: number | undefined;
}

function lengthMismatch(field: string, n: number, m: number): AppError {
  return new AppError(ErrorCode.InvalidParams, `signals.${field}: has ${n} values but logprobs_with_context has ${m} (one per reply token each)`, {
    details: { field: `signals.${field}` },
  });
}

/**
 * Checks that every signal array has one value per reply token (the same
 * length) and reduces them to per-reply means. A reply of zero tokens has no
 * signal: both components are skipped.
 */
export function summariseSignals(signals: StorySignals | undefined): SignalSummary {
  if (signals === undefined) return { infoGainNats: undefined, entropyNats: undefined };
  const withR = signals.logprobs_with_context;
  const withoutR = signals.logprobs_without_context;
  if (withoutR.length !== withR.length) throw lengthMismatch('logprobs_without_context', withoutR.length, withR.length);
  const entropies = signals.entropies;
  if (entropies !== undefined && entropies.length !== withR.length) throw lengthMismatch('entropies', entropies.length, withR.length);
  return {
    infoGainNats: mean(withR.map((lp, i) => lp - withoutR[i]!)),
    // Entropies a hair below 0 are rounding (the schema allows down to -0.001).
    entropyNats: entropies === undefined ? undefined : mean(entropies.map((h) => Math.max(0, h))),
  };
}
