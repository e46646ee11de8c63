import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { startTextConversation } from '../core/agent/text-conversation.ts';
import { toolAgent } from '../core/agent/tool-agent.ts';
import { limits, manualDeadlines } from '../core/agent/testing/agent.ts';
import { CALCULATOR_SCHEMA, createCalculatorTool } from '../core/tools/calculator.ts';
import type { HttpJsonClient } from './http-json.ts';
import { completionTokens, createOpenAiBackend } from './openai-backend.ts';

/** A fake server: each URL path answers with a function of the request body; every call is recorded. */
function fakeServer(routes: Record<string, (body: Record<string, unknown>) => unknown>) {
  const calls: Array<{ url: string; body: Record<string, unknown> }> = [];
  const post: HttpJsonClient = async <T>(url: string, body: unknown, schema: z.ZodType<T>) => {
    calls.push({ url, body: body as Record<string, unknown> });
    const handler = routes[new URL(url).pathname];
    if (handler === undefined) throw new Error(`no route ${url}`);
    return schema.parse(handler(body as Record<string, unknown>));
  };
  return { post, calls };
}

describe('openai backend, tokens mode (vLLM)', () => {
  it('templates with /tokenize, sends token-id prompts with log-probs, reads token_id:N tokens', async () => {
    const { post, calls } = fakeServer({
      '/tokenize': () => ({ tokens: [1, 2, 3], count: 3, max_model_len: 100 }),
      '/v1/completions': () => ({
        choices: [{ text: 'hi', finish_reason: 'stop', logprobs: { tokens: ['token_id:7', 'token_id:8'], token_logprobs: [-0.5, -0.25] } }],
      }),
    });
    const session = await createOpenAiBackend({ baseUrl: 'http://vllm:8000/v1', model: 'qwen', mode: 'tokens', post }).open();
    if (session.mode !== 'tokens') throw new Error('token session expected');
    expect(await session.codec.encodeChat([{ role: 'user', content: 'x' }], { addGenerationPrompt: true })).toEqual([1, 2, 3]);
    expect(session.maxSequenceLength).toBe(100);
    const gen = await session.generate({ promptIds: [1, 2, 3], params: { maxTokens: 5, temperature: 0.7, topK: 20, seed: 4 } });
    expect(gen).toEqual({ tokenIds: [7, 8], logprobs: [-0.5, -0.25], finishReason: 'stop', text: 'hi' });
    expect(calls.map((c) => c.url)).toEqual(['http://vllm:8000/tokenize', 'http://vllm:8000/v1/completions']);
    expect(calls[1]?.body).toEqual({
      model: 'qwen',
      prompt: [1, 2, 3],
      max_tokens: 5,
      temperature: 0.7,
      top_p: 1,
      top_k: 20,
      seed: 4,
      logprobs: 1,
      return_tokens_as_token_ids: true,
      return_token_ids: true,
    });
  });

  it('prefers vLLM’s token_ids and refuses a server that returns no ids', () => {
    expect(completionTokens({ text: '', finish_reason: 'length', token_ids: [5], logprobs: { token_logprobs: [-1] } })).toEqual({ ids: [5], logprobs: [-1] });
    expect(() => completionTokens({ text: 'a', finish_reason: 'stop', logprobs: { tokens: ['a'], token_logprobs: [-1] } })).toThrow(/OPENAI_MODE=chat/);
    expect(() => completionTokens({ text: 'a', finish_reason: 'stop', token_ids: [1, 2], logprobs: { token_logprobs: [-1] } })).toThrow(
      /1 log-probs for 2 tokens/,
    );
  });
});

describe('openai backend, chat mode', () => {
  const calculator = new Map([['calculator', createCalculatorTool({ schema: CALCULATOR_SCHEMA, timeoutMs: 10 })]]);

  async function runChat(replies: Array<Record<string, unknown>>) {
    let turn = 0;
    const { post, calls } = fakeServer({
      '/v1/chat/completions': () => ({ choices: [{ message: replies[turn++], finish_reason: 'stop' }], usage: { completion_tokens: 9 } }),
    });
    const session = await createOpenAiBackend({ baseUrl: 'http://api/v1', model: 'm', mode: 'chat', post }).open();
    if (session.mode !== 'text') throw new Error('text session expected');
    const out = await toolAgent(
      {
        conversation: startTextConversation(session, [{ role: 'user', content: '6*7?' }], {
          tools: [CALCULATOR_SCHEMA],
          templateArgs: { enable_thinking: false },
        }),
        sampling: { maxTokens: 100 },
        seed: undefined,
        limits: limits(),
        toolsKwargs: {},
        interaction: undefined,
        signal: new AbortController().signal,
      },
      { tools: calculator, deadline: manualDeadlines().deadline },
    );
    return { out, calls };
  }

  it('runs the tool agent on text: tools and template variables to the server, calls and answers as OpenAI messages', async () => {
    const { out, calls } = await runChat([
      { content: 'Let me compute.<tool_call>{"name": "calculator", "arguments": {"expression": "6*7"}}</tool_call>' },
      { content: '42' },
    ]);
    expect(out).toMatchObject({ token_level: false, response_ids: [], num_turns: 4, stop_reason: 'stop' });
    const second = calls[1]?.body;
    expect(second).toMatchObject({ tools: [CALCULATOR_SCHEMA], chat_template_kwargs: { enable_thinking: false } });
    expect(second?.messages).toEqual([
      { role: 'user', content: '6*7?' },
      {
        role: 'assistant',
        content: 'Let me compute.',
        tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }],
      },
      { role: 'tool', content: '42', tool_call_id: 'call_1_0' },
    ]);
    expect(out.messages.at(-1)).toEqual({ role: 'assistant', content: '42' });
  });

  it('takes the tool calls a server parsed itself (vLLM with a tool parser), keeping its ids', async () => {
    const { out, calls } = await runChat([
      { content: null, tool_calls: [{ id: 'chatcmpl-tool-9', type: 'function', function: { name: 'calculator', arguments: '{"expression": "6*7"}' } }] },
      { content: '42' },
    ]);
    expect(out.tool_calls).toEqual([{ turn: 1, name: 'calculator', arguments: { expression: '6*7' }, reward: null }]);
    const second = calls[1]?.body.messages as Array<Record<string, unknown>>;
    expect(second.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'chatcmpl-tool-9', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }],
      },
      { role: 'tool', content: '42', tool_call_id: 'chatcmpl-tool-9' },
    ]);
  });
});
