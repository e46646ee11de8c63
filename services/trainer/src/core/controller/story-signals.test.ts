import { ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import type { DatasetRow } from '../../data/index.ts';
import type { RolloutResult } from './ports.ts';
import { replySignals, signalsOf, withoutContextPass, type SignalsContext } from './story-signals.ts';

const row = (dataSource: string, id: number): DatasetRow => ({
  row_id: id,
  file_index: 0,
  data_source: dataSource,
  prompt: 'with r',
  prompt_without_context: 'bare',
  ability: null,
  ground_truth: null,
  reward_model: null,
  extra_info: {},
  agent_name: null,
  tools_kwargs: {},
  interaction_kwargs: {},
  index: 0,
});
const rollout = (r: number, responseMask: number[]): RolloutResult => ({
  row: r,
  uid: `u${r}`,
  promptIds: [1, 2, 3],
  responseIds: responseMask.map(() => 4),
  responseMask,
  text: 't',
  modelVersion: 'v0',
});

describe('story signals', () => {
  const ctx: SignalsContext = { needs: (ds) => ds === 'story', promptIds: (r) => [9, r.row_id], promptWidth: 8 };
  const rows = [row('story', 10), row('openai/gsm8k', 11), row('story', 12)];
  const rollouts = [rollout(0, [1, 1]), rollout(1, [1]), rollout(2, [1, 0, 1]), rollout(0, [1])];

  it('scores again, without r, exactly the rollouts whose rows get signals', () => {
    expect(withoutContextPass(ctx, rows, rollouts)).toEqual({
      entries: [
        { index: 0, prompt: [9, 10] },
        { index: 2, prompt: [9, 12] },
        { index: 3, prompt: [9, 10] },
      ],
      promptWidth: 8,
    });
    expect(withoutContextPass({ ...ctx, needs: () => false }, rows, rollouts)).toBeUndefined();
  });

  it('keeps only the tokens the model produced (mask 1), so lengths equal the reply as the reward sees it', () => {
    expect(replySignals([1, 0, 1, 1], [-1, -2, -3, -4], [-5, -6, -7, -8], [0.5, 0.6, -1e-7, 0.8])).toEqual({
      logprobs_with_context: [-1, -3, -4],
      logprobs_without_context: [-5, -7, -8],
      entropies: [0.5, 0, 0.8],
    });
  });

  it('gives each rollout its own signals and none to rollouts without', () => {
    const pass = withoutContextPass(ctx, rows, rollouts)!;
    const reply = {
      logprobs: [[-1, -2], [-9], [-3, -4, -5], [-6]],
      entropies: [[1, 2], [9], [3, 4, 5], [6]],
      logprobsWithoutContext: [[-11, -12], [-13, -14, -15], [-16]],
    };
    const signals = signalsOf(rollouts, pass, reply);
    expect(signals[1]).toBeUndefined();
    expect(signals[0]).toEqual({ logprobs_with_context: [-1, -2], logprobs_without_context: [-11, -12], entropies: [1, 2] });
    expect(signals[2]).toEqual({ logprobs_with_context: [-3, -5], logprobs_without_context: [-13, -15], entropies: [3, 5] });
    expect(signals[3]).toEqual({ logprobs_with_context: [-6], logprobs_without_context: [-16], entropies: [6] });
    expect(() => signalsOf(rollouts, pass, { logprobs: reply.logprobs })).toThrow(expect.objectContaining({ code: ErrorCode.UpstreamError }));
  });
});
