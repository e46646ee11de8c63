// The reward components by name and the weights that combine them into the total
// (the formulas themselves are in formulas.ts, the total in weighted-total.ts).
import { STORY_COMPONENTS } from '@rl/service-kit/core';
import { z } from 'zod';

/** Every reward component, in the order they are reported (the shared contract the trainer plots too). */
export const COMPONENTS = STORY_COMPONENTS;
/** One reward component's name. */
export type Component = (typeof COMPONENTS)[number];

/** A weight for every component. */
export type Weights = Record<Component, number>;

/**
 * Default weights (only ratios matter). What the reference says (in the reply's
 * own words) and the fit to the story carry most of the reward; relevance, the
 * cosine to the user input, weighs little because echoing the user's words
 * maximises it; repetition and the reference comparison guard against copying
 * earlier turns and the reference; the trainer's signals and the format check
 * are nudges. Chosen on the bundled evaluation set (docs/evaluation.md).
 */
export const DEFAULT_WEIGHTS: Readonly<Weights> = Object.freeze({
  relevance: 0.05,
  coherence: 0.2,
  reference_recall: 0.4,
  non_repetition: 0.15,
  beyond_reference: 0.15,
  info_gain: 0.1,
  entropy: 0.05,
  format: 0.1,
});

/** Largest accepted single weight (weights are renormalised, so only ratios matter). */
export const MAX_WEIGHT = 1_000;

/** A partial weight table: unknown component names and negative or non-finite weights are rejected. */
export const PartialWeights = z.strictObject(
  Object.fromEntries(COMPONENTS.map((c) => [c, z.number().min(0).max(MAX_WEIGHT).optional()])) as Record<Component, z.ZodOptional<z.ZodNumber>>,
);
/** Parsed partial weight table. */
export type PartialWeights = z.infer<typeof PartialWeights>;

/** `base` with the weights `override` names replaced. */
export function mergeWeights(base: Readonly<Weights>, override: PartialWeights | undefined): Weights {
  const out = { ...base };
  if (override === undefined) return out;
  for (const c of COMPONENTS) {
    const w = override[c];
    if (w !== undefined) out[c] = w;
  }
  return out;
}
