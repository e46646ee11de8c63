import { pyFloatRepr, pyStr, pyStringRepr } from '@rl/service-kit/core';
import type { EnvPort } from '../env-port.ts';
import { gsm8kItem, scoreOne } from './score-one.ts';
import type { Tool, ToolSchema } from './tool.ts';

/** verl's default schema of `calc_gsm8k_reward` (examples/.../gsm8k_tool_config.yaml). */
export const GSM8K_REWARD_SCHEMA: ToolSchema = {
  type: 'function',
  function: {
    name: 'calc_gsm8k_reward',
    description: 'A tool for calculating the reward of gsm8k. (1.0 if parsed answer is correct, 0.0 if parsed answer is incorrect or not correctly parsed)',
    parameters: {
      type: 'object',
      properties: { answer: { type: 'string', description: "The model's answer to the GSM8K math problem, must be a digits" } },
      required: ['answer'],
    },
  },
};

/**
 * verl's `Gsm8kTool`: prefixes the answer with `#### ` unless present, scores it
 * (flexible gsm8k) through `reward.rules.score` against
 * `create_kwargs.ground_truth`, and answers `Current parsed answer='..' reward=..`.
 * The step reward is 0.0 for an answer better than the instance's last one and
 * -0.05 otherwise; verl's `_call_tool` creates a fresh instance for every call,
 * so "the last one" is always 0.0 and the rule is: correct 0.0, else -0.05.
 */
export function createGsm8kRewardTool(o: { schema: ToolSchema; timeoutMs: number; port: EnvPort }): Tool {
  return {
    name: o.schema.function.name,
    schema: o.schema,
    timeoutMs: o.timeoutMs,
    async execute(args, ctx) {
      const answer = pyStr(args.answer ?? '');
      const response = answer.startsWith('#### ') ? answer : `#### ${answer}`;
      const groundTruth = ctx.createKwargs.ground_truth;
      // gsm8k.compute_score compares with `==`: nothing equals a missing (None) ground truth.
      const reward =
        groundTruth === undefined || groundTruth === null
          ? 0
          : await scoreOne(o.port, gsm8kItem(response, groundTruth, 'flexible'), { signal: ctx.signal, timeoutMs: o.timeoutMs });
      return { text: `Current parsed answer=${pyStringRepr(answer)} reward=${pyFloatRepr(reward)}`, reward: reward > 0 ? 0 : -0.05 };
    },
  };
}
