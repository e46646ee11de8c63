import { describe, expect, it } from 'vitest';
import { expectInvalid } from '../testing/assertions.ts';
import { parseRolloutRsOptions, parseRolloutRsThresholds } from './rs-thresholds.ts';

describe('rollout_rs option and threshold parsing (verl _parse_rollout_rs_thresholds)', () => {
  it('splits, trims and de-duplicates the options, keeping the first occurrence', () => {
    expect(parseRolloutRsOptions(' token_k1 , seq_mean_k3,token_k1,')).toEqual(['token_k1', 'seq_mean_k3']);
  });

  it('a single k1 upper bound implies its reciprocal as the lower bound; one spec is shared by all options', () => {
    const b = parseRolloutRsThresholds(['seq_mean_k1', 'token_k3'], 2);
    expect(b.get('seq_mean_k1')).toEqual({ lower: 0.5, upper: 2 });
    expect(b.get('token_k3')).toEqual({ lower: null, upper: 2 });
    expect(parseRolloutRsThresholds(['token_k1'], '0.999_1.001').get('token_k1')).toEqual({ lower: 0.999, upper: 1.001 });
    expect(parseRolloutRsThresholds(['token_k2'], 'inf').get('token_k2')).toEqual({ lower: null, upper: Infinity });
  });

  it('rejects what verl rejects', () => {
    expectInvalid(() => parseRolloutRsOptions('token_k4'), 'rolloutRs');
    expectInvalid(() => parseRolloutRsOptions(' , '), 'rolloutRs');
    expectInvalid(() => parseRolloutRsThresholds(['token_k1', 'token_k2', 'token_k3'], '1.5,2'), 'rolloutRsThreshold');
    expectInvalid(() => parseRolloutRsThresholds(['token_k2'], '0.5_2'), 'rolloutRsThreshold');
    expectInvalid(() => parseRolloutRsThresholds(['token_k1'], '-1_2'), 'rolloutRsThreshold');
    expectInvalid(() => parseRolloutRsThresholds(['seq_max_k3'], 'abc'), 'rolloutRsThreshold');
    expectInvalid(() => parseRolloutRsThresholds(['seq_max_k3'], ''), 'rolloutRsThreshold');
  });
});
