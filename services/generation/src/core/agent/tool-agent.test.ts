import { describe, expect, it } from 'vitest';
import { scriptedLogprob } from '../backends/scripted-policy.ts';
import type { EnvPort } from '../env-port.ts';
import { createGsm8kInteraction, GSM8K_CORRECT, GSM8K_INCORRECT } from '../interactions/gsm8k.ts';
import type { ChatMessage } from '../policy-types.ts';
import { CALCULATOR_SCHEMA, createCalculatorTool } from '../tools/calculator.ts';
import { createGsm8kRewardTool, GSM8K_REWARD_SCHEMA } from '../tools/gsm8k-reward.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentLimits, AgentOutput } from './agent-types.ts';
import { envIds, fakePort, limits, manualDeadlines, modelIds, replySession, tokenizer } from './testing/agent.ts';
import { startTokenConversation } from './token-conversation.ts';
import { toolAgent } from './tool-agent.ts';

const PROMPT: ChatMessage[] = [
  { role: 'system', content: 'You are a math expert.' },
  { role: 'user', content: 'Janet has 16 eggs, eats 3, bakes 4 and sells the rest at $2. How much?' },
];
const CALL_18 = 'Let me check. <tool_call>{"name": "calc_gsm8k_reward", "arguments": {"answer": "18"}}</tool_call>';

interface RunOptions {
  port?: EnvPort;
  limits?: Partial<AgentLimits>;
  maxTokens?: number;
  interaction?: boolean;
  deadlines?: ReturnType<typeof manualDeadlines>;
  timeoutMs?: number;
}

function toolsOf(port: EnvPort, timeoutMs = 50): Map<string, Tool> {
  return new Map<string, Tool>([
    ['calc_gsm8k_reward', createGsm8kRewardTool({ schema: GSM8K_REWARD_SCHEMA, timeoutMs, port })],
    ['calculator', createCalculatorTool({ schema: CALCULATOR_SCHEMA, timeoutMs })],
  ]);
}

async function run(replies: string[], o: RunOptions = {}): Promise<AgentOutput> {
  const port = o.port ?? fakePort();
  const tools = toolsOf(port, o.timeoutMs);
  const session = await replySession(replies);
  const conversation = await startTokenConversation(session, PROMPT, { tools: [...tools.values()].map((t) => t.schema) });
  const interaction =
    o.interaction === true
      ? { impl: createGsm8kInteraction({ name: 'gsm8k', port, timeoutMs: 50 }), kwargs: { name: 'gsm8k', ground_truth: '18' } }
      : undefined;
  return toolAgent(
    {
      conversation,
      sampling: { temperature: 1, maxTokens: o.maxTokens ?? 4096 },
      seed: undefined,
      limits: limits(o.limits),
      toolsKwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: '18' } } },
      interaction,
      signal: new AbortController().signal,
    },
    { tools, deadline: (o.deadlines ?? manualDeadlines()).deadline },
  );
}

/** The expected response, segment by segment: model text (mask 1) or environment messages (mask 0). */
function expectTokens(out: AgentOutput, segments: Array<{ model: string } | { env: ChatMessage[] }>): void {
  const ids: number[] = [];
  const mask: number[] = [];
  const logprobs: number[] = [];
  for (const s of segments) {
    if ('model' in s) {
      const m = modelIds(s.model);
      ids.push(...m);
      mask.push(...m.map(() => 1));
      logprobs.push(...m.map((id, i) => scriptedLogprob(id, i)));
    } else {
      const e = envIds(s.env);
      ids.push(...e);
      mask.push(...e.map(() => 0));
      logprobs.push(...e.map(() => 0));
    }
  }
  expect(out.response_ids).toEqual(ids);
  expect(out.response_mask).toEqual(mask);
  expect(out.response_logprobs).toEqual(logprobs);
}

describe('tool agent', () => {
  it('runs tool call -> tool response -> final answer, token by token', async () => {
    const out = await run([CALL_18, 'So she makes #### 18']);
    const toolMsg: ChatMessage = { role: 'tool', content: "Current parsed answer='18' reward=1.0", tool_call_id: 'call_1_0' };
    // The tools go to the template, which renders them into the system turn.
    expect(out.prompt_ids).toEqual(tokenizer.applyChatTemplate(PROMPT, { tools: [GSM8K_REWARD_SCHEMA, CALCULATOR_SCHEMA], addGenerationPrompt: true }));
    expect(tokenizer.decode(out.prompt_ids, { keepSpecial: true })).toContain('<tools>\n{"type": "function", "function": {"name": "calc_gsm8k_reward"');
    expectTokens(out, [{ model: CALL_18 }, { env: [toolMsg] }, { model: 'So she makes #### 18' }]);
    const call = { id: 'call_1_0', type: 'function', function: { name: 'calc_gsm8k_reward', arguments: { answer: '18' } } };
    expect(out.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Let me check. ', tool_calls: [call] },
      toolMsg,
      { role: 'assistant', content: 'So she makes #### 18' },
    ]);
    expect(out).toMatchObject({
      num_turns: 4,
      tool_rewards: [0],
      turn_scores: [],
      num_tool_calls: 1,
      num_tool_errors: 0,
      stop_reason: 'stop',
      token_level: true,
    });
    expect(out.tool_calls).toEqual([{ turn: 1, name: 'calc_gsm8k_reward', arguments: { answer: '18' }, reward: 0 }]);
  });

  it('scores a wrong answer -0.05 and sends the ground truth from tools_kwargs to the scorer', async () => {
    const port = fakePort();
    const out = await run(['<tool_call>{"name": "calc_gsm8k_reward", "arguments": {"answer": 17}}</tool_call>', '#### 17'], { port });
    expect(port.scored).toEqual([
      { data_source: 'openai/gsm8k', solution_str: '#### 17', ground_truth: '18', params: { method: 'flexible', format_score: 0, score: 1 } },
    ]);
    expect(out.messages[3]).toEqual({ role: 'tool', content: "Current parsed answer='17' reward=0.0", tool_call_id: 'call_1_0' });
    expect(out.tool_rewards).toEqual([-0.05]);
  });

  it('answers a malformed tool call with an error message and goes on', async () => {
    const bad = '<tool_call>{"name": "calc_gsm8k_reward", "arguments": {"answer": "18"}</tool_call>';
    const out = await run([bad, '#### 18']);
    // A call that does not parse leaves the whole text as the message (vLLM), and the model is told why.
    expect(out.messages[2]).toEqual({ role: 'assistant', content: bad });
    const toolMsg = out.messages[3];
    expect(toolMsg?.role).toBe('tool');
    expect(toolMsg?.tool_call_id).toBeUndefined();
    expect(toolMsg?.content).toMatch(/^Error when executing tool: tool call is not valid JSON/);
    expectTokens(out, [{ model: bad }, { env: [toolMsg as ChatMessage] }, { model: '#### 18' }]);
    expect(out.tool_calls).toEqual([{ turn: 1, name: null, arguments: null, error: 'malformed', reward: 0 }]);
    expect(out).toMatchObject({ num_tool_calls: 1, num_tool_errors: 1, tool_rewards: [0], stop_reason: 'stop' });
  });

  it('answers unknown tools and non-object arguments with errors', async () => {
    const calls = '<tool_call>{"name": "web_search", "arguments": {"q": "x"}}</tool_call><tool_call>{"name": "calculator", "arguments": [1]}</tool_call>';
    const out = await run([calls, 'done'], { limits: { maxParallelCalls: 2 } });
    expect(out.messages.slice(3, 5).map((m) => m.content)).toEqual([
      "Error when executing tool: unknown tool 'web_search' (available: calc_gsm8k_reward, calculator)",
      'Error when executing tool: arguments of calculator must be a JSON object',
    ]);
    expect(out.tool_calls.map((r) => r.error)).toEqual(['unknown_tool', 'malformed']);
  });

  it('turns a tool that misses its deadline into an error message', async () => {
    const deadlines = manualDeadlines();
    const port = fakePort({
      score: () => {
        // The call is under way: its deadline passes now; the scorer never answers.
        deadlines.fire();
        return new Promise(() => {});
      },
    });
    const out = await run([CALL_18, '#### 18'], { port, deadlines, timeoutMs: 50 });
    expect(deadlines.requested).toEqual([50]);
    expect(out.messages[3]).toEqual({ role: 'tool', content: 'Error when executing tool: calc_gsm8k_reward timed out after 50 ms', tool_call_id: 'call_1_0' });
    expect(out.tool_calls).toEqual([{ turn: 1, name: 'calc_gsm8k_reward', arguments: { answer: '18' }, error: 'timeout', reward: 0 }]);
    expect(out.stop_reason).toBe('stop');
  });

  it('runs at most max_parallel_calls calls of a turn, in order', async () => {
    const three = ['1+1', '2*3', '7//2'].map((e) => `<tool_call>{"name": "calculator", "arguments": {"expression": "${e}"}}</tool_call>`).join('\n');
    const out = await run([three, 'ok'], { limits: { maxParallelCalls: 2 } });
    expect(out.messages[2]?.tool_calls?.map((c) => [c.id, c.function.arguments])).toEqual([
      ['call_1_0', { expression: '1+1' }],
      ['call_1_1', { expression: '2*3' }],
      ['call_1_2', { expression: '7//2' }],
    ]);
    expect(out.messages.slice(3, 5)).toEqual([
      { role: 'tool', content: '2', tool_call_id: 'call_1_0' },
      { role: 'tool', content: '6', tool_call_id: 'call_1_1' },
    ]);
    expect(out.num_tool_calls).toBe(2);
    expect(out.tool_rewards).toEqual([]);
  });

  it('truncates long tool answers as verl does (middle by default)', async () => {
    const out = await run(['<tool_call>{"name": "calculator", "arguments": {"expression": "2^60"}}</tool_call>', 'ok'], {
      limits: { maxToolResponseLength: 6 },
    });
    expect(out.messages[3]?.content).toBe('115...(truncated)...976');
  });
});

describe('tool agent with the gsm8k interaction', () => {
  it('feeds back until the answer is correct, with turn rewards and masks', async () => {
    const port = fakePort();
    const out = await run(['I think #### 17', 'Sorry, #### 18'], { port, interaction: true });
    const wrong: ChatMessage = { role: 'user', content: GSM8K_INCORRECT };
    const right: ChatMessage = { role: 'user', content: GSM8K_CORRECT };
    expectTokens(out, [{ model: 'I think #### 17' }, { env: [wrong] }, { model: 'Sorry, #### 18' }, { env: [right] }]);
    expect(out).toMatchObject({ turn_scores: [0, 1], num_turns: 5, stop_reason: 'interaction_done', tool_rewards: [] });
    expect(port.scored.map((i) => [i.solution_str, i.params?.method])).toEqual([
      ['I think #### 17', 'strict'],
      ['Sorry, #### 18', 'strict'],
    ]);
  });

  it('stops at max_user_turns after the next model turn (verl checks after generating)', async () => {
    const out = await run(['#### 1', '#### 2', '#### 3'], { interaction: true, limits: { maxUserTurns: 1 } });
    expect(out.messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
    expect(out).toMatchObject({ turn_scores: [0], stop_reason: 'max_user_turns', num_turns: 4 });
  });

  it('cuts feedback that overruns the budget, keeping the mask aligned', async () => {
    const first = modelIds('#### 17').length;
    const out = await run(['#### 17', '#### 18'], { interaction: true, limits: { maxResponseTokens: first + 5 } });
    expect(out.response_ids).toHaveLength(first + 5);
    expect(out.response_mask).toEqual([...Array(first).fill(1), 0, 0, 0, 0, 0]);
    expect(out.response_logprobs.slice(first)).toEqual([0, 0, 0, 0, 0]);
    expect(out.stop_reason).toBe('response_budget');
  });
});

describe('tool agent budgets and limits', () => {
  it('cuts a model turn at the response budget and stops', async () => {
    const out = await run(['x'.repeat(100)], { limits: { maxResponseTokens: 10 } });
    expect(out.response_ids).toEqual(tokenizer.encode('x'.repeat(10)));
    expect(out.response_mask).toEqual(Array(10).fill(1));
    expect(out.stop_reason).toBe('response_budget');
  });

  it('does not append tool answers that would reach the budget', async () => {
    const first = modelIds(CALL_18).length;
    const out = await run([CALL_18, '#### 18'], { limits: { maxResponseTokens: first + 10 } });
    expect(out.response_ids).toEqual(modelIds(CALL_18));
    expect(out.num_tool_calls).toBe(1);
    expect(out.stop_reason).toBe('response_budget');
  });

  it('caps every turn at sampling max_tokens and reports length on the last', async () => {
    const out = await run(['abcdefghij'], { maxTokens: 4 });
    expect(out.response_ids).toEqual(tokenizer.encode('abcd'));
    expect(out.stop_reason).toBe('length');
  });

  it('stops at max_assistant_turns', async () => {
    const out = await run([CALL_18], { limits: { maxAssistantTurns: 2 } });
    expect(out.messages.filter((m) => m.role === 'assistant')).toHaveLength(2);
    expect(out).toMatchObject({ num_tool_calls: 1, num_turns: 4, stop_reason: 'max_assistant_turns' });
  });

  it('never produces mask, ids and log-probs of different lengths', async () => {
    for (const budget of [1, 7, 40, 90, 200, 1000]) {
      const out = await run([CALL_18, CALL_18, 'end'], { interaction: true, limits: { maxResponseTokens: budget } });
      expect(out.response_mask).toHaveLength(out.response_ids.length);
      expect(out.response_logprobs).toHaveLength(out.response_ids.length);
      expect(out.response_ids.length).toBeLessThanOrEqual(budget);
    }
  });
});
