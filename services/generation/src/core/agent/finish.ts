import type { ToolCallRecord } from '../tools/run-tool.ts';
import { StopReason, type AgentInput, type AgentOutput } from './agent-types.ts';

/** Counters an agent loop keeps while it runs. */
export interface LoopState {
  assistantTurns: number;
  userTurns: number;
  turnScores: number[];
  toolRewards: number[];
  toolCalls: ToolCallRecord[];
}

/** A fresh {@link LoopState}. */
export function newLoopState(): LoopState {
  return { assistantTurns: 0, userTurns: 0, turnScores: [], toolRewards: [], toolCalls: [] };
}

/** Why no further model turn fits: the sequence limit or the response budget. */
export function noRoomReason(input: AgentInput): StopReason {
  const { conversation, limits } = input;
  if (conversation.responseLength() >= limits.maxResponseTokens) return StopReason.ResponseBudget;
  return conversation.sequenceRoom() <= 0 ? StopReason.SequenceLimit : StopReason.ResponseBudget;
}

/** Assembles the trajectory; token fields are cut to the response budget (verl's final slice). */
export function finishOutput(input: AgentInput, st: LoopState, stop: StopReason, numTurns: number): AgentOutput {
  const { conversation } = input;
  return {
    ...conversation.fields(input.limits.maxResponseTokens),
    num_turns: numTurns,
    turn_scores: st.turnScores,
    tool_rewards: st.toolRewards,
    tool_calls: st.toolCalls,
    num_tool_calls: st.toolCalls.length,
    num_tool_errors: st.toolCalls.filter((r) => r.error !== undefined).length,
    messages: [...conversation.messages],
    stop_reason: stop,
    token_level: conversation.tokenLevel,
    model_version: conversation.modelVersion,
  };
}
