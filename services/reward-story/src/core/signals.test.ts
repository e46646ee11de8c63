import { describe, expect, it } from 'vitest';
import type { StorySignals } from './story-item.ts';
import { summariseSignals } from './signals.ts';
import { expectAppError } from '@rl/service-kit/testing';

describe('summariseSignals', () => {
  it('averages the per-token log-prob gain and entropy', () => {
    const s = summariseSignals({ logprobs_with_context: [-1, -0.5, -2], logprobs_without_context: [-2, -0.5, -2.3], entropies: [1, 2, -0.0005] });
    expect(s.infoGainNats).toBeCloseTo((1 + 0 + 0.3) / 3, 12);
    expect(s.entropyNats).toBeCloseTo(1, 12);
  });

  it('gives nothing without signals, without entropies, or for zero tokens', () => {
    expect(summariseSignals(undefined)).toEqual({ infoGainNats: undefined, entropyNats: undefined });
    expect(summariseSignals({ logprobs_with_context: [-1], logprobs_without_context: [-1] }).entropyNats).toBeUndefined();
    expect(summariseSignals({ logprobs_with_context: [], logprobs_without_context: [], entropies: [] })).toEqual({
      infoGainNats: undefined,
      entropyNats: undefined,
    });
  });

  it('rejects arrays of different lengths, naming the field', () => {
    const bad: Array<[StorySignals, string]> = [
      [{ logprobs_with_context: [-1, -1], logprobs_without_context: [-1] }, 'signals.logprobs_without_context'],
      [{ logprobs_with_context: [-1], logprobs_without_context: [-1], entropies: [1, 2] }, 'signals.entropies'],
    ];
    for (const [signals, field] of bad) {
      const err = expectAppError(() => summariseSignals(signals));
      expect(err.code).toBe('invalid_params');
      expect(err.message.startsWith(`${field}: has `)).toBe(true);
    }
  });
});
