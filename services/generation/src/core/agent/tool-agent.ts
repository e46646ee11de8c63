import { runToolCall, truncateToolText } from '../tools/run-tool.ts';
import type { ChatMessage } from '../policy-types.ts';
import { StopReason, type AgentEnv, type AgentInput, type AgentLoop } from './agent-types.ts';
import { finishOutput, newLoopState, noRoomReason, type LoopState } from './finish.ts';
import type { ModelTurn } from './conversation.ts';
import { nextTurnParams } from './turn-params.ts';

/**
 * verl's `tool_agent` state machine: generate; stop on the response budget or
 * the turn limits (checked after each generation, in verl's order); run the
 * Hermes tool calls of the turn (the assistant message keeps them as
 * `tool_calls`) and append their answers as `tool` messages (mask 0), unless that
 * would reach the budget; with no tool call, let the sample's interaction
 * answer (mask 0, its reward a turn score) or stop.
 */
export const toolAgent: AgentLoop = async (input, env) => {
  const { conversation, limits, signal } = input;
  const st = newLoopState();
  const stop = await loop();
  return finishOutput(input, st, stop, st.userTurns + st.assistantTurns + 1);

  async function loop(): Promise<StopReason> {
    for (;;) {
      signal.throwIfAborted();
      const params = nextTurnParams(input, st.assistantTurns);
      if (params === undefined) return noRoomReason(input);
      const turn = await conversation.generate(params, signal);
      st.assistantTurns++;
      if (conversation.responseLength() >= limits.maxResponseTokens) return StopReason.ResponseBudget;
      if (limits.maxAssistantTurns !== null && st.assistantTurns >= limits.maxAssistantTurns) return StopReason.MaxAssistantTurns;
      if (limits.maxUserTurns !== null && st.userTurns >= limits.maxUserTurns) return StopReason.MaxUserTurns;

      if (turn.calls.length > 0) {
        const added = await runTools(turn, input, env, st);
        const rendered = await conversation.renderEnv(added);
        if (conversation.responseLength() + rendered.tokenCount >= limits.maxResponseTokens) return StopReason.ResponseBudget;
        rendered.commit();
        st.userTurns++;
        continue;
      }
      if (input.interaction !== undefined) {
        const reply = await input.interaction.impl.respond(conversation.messages, input.interaction.kwargs, { signal });
        st.userTurns++;
        if (reply.reward !== null) st.turnScores.push(reply.reward);
        // verl appends the feedback whatever the budget; the final cut keeps the mask aligned.
        (await conversation.renderEnv([{ role: 'user', content: reply.text }])).commit();
        if (reply.done) return StopReason.InteractionDone;
        continue;
      }
      return turn.finishReason === 'stop' ? StopReason.Stop : StopReason.Length;
    }
  }
};

/** Runs the turn's first `maxParallelCalls` calls; their answers are `tool` messages, each naming its call when the assistant message has `tool_calls`. */
async function runTools(turn: ModelTurn, input: AgentInput, env: AgentEnv, st: LoopState): Promise<ChatMessage[]> {
  const { limits } = input;
  const ctx = { tools: env.tools, toolsKwargs: input.toolsKwargs, turn: st.assistantTurns, deadline: env.deadline, signal: input.signal };
  const outcomes = await Promise.all(turn.calls.slice(0, limits.maxParallelCalls).map((c) => runToolCall(c, ctx)));
  return outcomes.map(({ text, record }, k): ChatMessage => {
    st.toolCalls.push(record);
    if (record.reward !== null) st.toolRewards.push(record.reward);
    const id = turn.message.tool_calls?.[k]?.id;
    const content = truncateToolText(text, limits.maxToolResponseLength, limits.toolResponseTruncateSide);
    return id === undefined ? { role: 'tool', content } : { role: 'tool', content, tool_call_id: id };
  });
}
