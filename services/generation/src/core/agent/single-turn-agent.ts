import { StopReason, type AgentLoop } from './agent-types.ts';
import { finishOutput, newLoopState, noRoomReason } from './finish.ts';
import { nextTurnParams } from './turn-params.ts';

/** verl's `single_turn_agent`: one model turn, no tools; `num_turns` is 2. */
export const singleTurnAgent: AgentLoop = async (input) => {
  const st = newLoopState();
  const params = nextTurnParams(input, 0);
  if (params === undefined) return finishOutput(input, st, noRoomReason(input), 2);
  const turn = await input.conversation.generate(params, input.signal);
  st.assistantTurns = 1;
  const budgetHit = input.conversation.responseLength() >= input.limits.maxResponseTokens;
  const stop = turn.finishReason === 'stop' ? StopReason.Stop : budgetHit ? StopReason.ResponseBudget : StopReason.Length;
  return finishOutput(input, st, stop, 2);
};
