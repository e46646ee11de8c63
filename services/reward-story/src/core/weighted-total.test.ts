import { describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHTS, mergeWeights, type Weights } from './weights.ts';
import { parseStoryParams } from './story-params.ts';
import { expectAppError } from '@rl/service-kit/testing';
import { weightedTotal, type ComponentValues } from './weighted-total.ts';

const none: ComponentValues = {
  relevance: undefined,
  coherence: undefined,
  reference_recall: undefined,
  non_repetition: undefined,
  beyond_reference: undefined,
  info_gain: undefined,
  entropy: undefined,
  format: undefined,
};

describe('weightedTotal', () => {
  it('is the weighted mean over the components that apply, weights renormalised over them', () => {
    const { total, weightsUsed } = weightedTotal({ ...none, relevance: 1, format: 0 }, DEFAULT_WEIGHTS);
    // 0.05 and 0.1 renormalised: 1/3 and 2/3.
    expect(total).toBeCloseTo(1 / 3, 12);
    expect(weightsUsed.relevance).toBeCloseTo(1 / 3, 12);
    expect(weightsUsed.format).toBeCloseTo(2 / 3, 12);
    expect(weightsUsed.coherence).toBe(0);
  });

  it('fails with invalid_params when every applying component weighs 0', () => {
    const zeroRelevance: Weights = { ...DEFAULT_WEIGHTS, relevance: 0 };
    const err = expectAppError(() => weightedTotal({ ...none, relevance: 1 }, zeroRelevance));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/^params\.weights: .*applies: relevance/);
  });
});

describe('weights from params', () => {
  it('override the configured weights one by one', () => {
    const { weights } = parseStoryParams({ weights: { format: 1, entropy: 0 } });
    expect(mergeWeights(DEFAULT_WEIGHTS, weights)).toEqual({ ...DEFAULT_WEIGHTS, format: 1, entropy: 0 });
    expect(mergeWeights(DEFAULT_WEIGHTS, undefined)).toEqual(DEFAULT_WEIGHTS);
  });

  it('reject unknown components, negative weights and unknown params, naming the key', () => {
    for (const [params, field] of [
      [{ weights: { fluency: 1 } }, 'params.weights'],
      [{ weights: { relevance: -1 } }, 'params.weights.relevance'],
      [{ weights: { relevance: '1' } }, 'params.weights.relevance'],
      [{ temperature: 2 }, 'params'],
    ] as const) {
      const err = expectAppError(() => parseStoryParams(params));
      expect(err.code).toBe('invalid_params');
      expect(err.message.startsWith(`${field}: `)).toBe(true);
    }
    expect(parseStoryParams({ timeout_ms: 1000 })).toEqual({ timeout_ms: 1000 });
  });
});
