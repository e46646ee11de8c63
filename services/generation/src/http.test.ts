import { BoundedQueue } from '@rl/service-kit';
import { createTestApp } from '@rl/service-kit/testing';
import { describe, expect, it } from 'vitest';
import { fakePort, manualDeadlines, scriptedBackend, tokenizer } from './core/agent/testing/agent.ts';
import type { Script } from './core/backends/scripted-policy.ts';
import type { ChatMessage } from './core/policy-types.ts';
import { createGsm8kInteraction } from './core/interactions/gsm8k.ts';
import type { RolloutDeps } from './core/rollout/run-rollouts.ts';
import { CALCULATOR_SCHEMA, createCalculatorTool } from './core/tools/calculator.ts';
import { addRoutes } from './http.ts';
import type { ChatCompletionResponse, CompletionResponse } from './schemas/openai.ts';
import type { RolloutResponse } from './schemas/rollout.ts';

function app(script: Script = () => 'Hello there') {
  const a = createTestApp({ service: 'generation', maxBodyBytes: 1 << 20 });
  const deps: RolloutDeps = {
    backend: scriptedBackend(script),
    env: { tools: new Map([['calculator', createCalculatorTool({ schema: CALCULATOR_SCHEMA, timeoutMs: 10 })]]), deadline: manualDeadlines().deadline },
    interactions: new Map([['gsm8k', createGsm8kInteraction({ name: 'gsm8k', port: fakePort(), timeoutMs: 10 })]]),
    defaults: { maxPromptTokens: 4096, maxResponseTokens: 64 },
    slots: new BoundedQueue({ concurrency: 8 }),
    newId: () => 'id',
  };
  addRoutes(a, deps, 1_700_000_000);
  return a;
}

const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const json = async <T = Record<string, unknown>>(r: Response) => (await r.json()) as T;
interface Problem {
  error: { code: string; message: string };
}
interface ChatChunk {
  choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
  usage?: { completion_tokens: number };
}

describe('POST /v1/rollouts', () => {
  it('rolls out and answers in order', async () => {
    const res = await app().request('/v1/rollouts', post({ samples: [{ prompt: [{ role: 'user', content: 'hi' }] }], n: 2 }));
    expect(res.status).toBe(200);
    const body = await json<RolloutResponse>(res);
    expect(body.results.map((r) => [r.group, r.rollout_n, r.uid, 'stop_reason' in r ? r.stop_reason : r.error.code])).toEqual([
      [0, 0, 'id-0', 'stop'],
      [0, 1, 'id-0', 'stop'],
    ]);
  });

  it('templates prompts with a tool-call history (null fields of parquet rows count as absent)', async () => {
    const prompt = [
      { role: 'user', content: '2+2?', tool_calls: null, tool_call_id: null },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculator', arguments: { expression: '2+2' } } }] },
      { role: 'tool', content: '4', tool_call_id: 'c1', name: null },
      { role: 'user', content: 'And 3+3?' },
    ];
    const res = await app().request('/v1/rollouts', post({ samples: [{ prompt, agent_name: 'tool_agent' }], chat_template_kwargs: { unused: 1 } }));
    const [t] = (await json<RolloutResponse>(res)).results;
    const call = { id: 'c1', type: 'function' as const, function: { name: 'calculator', arguments: { expression: '2+2' } } };
    const clean: ChatMessage[] = [
      { role: 'user', content: '2+2?' },
      { role: 'assistant', content: '', tool_calls: [call] },
      { role: 'tool', content: '4', tool_call_id: 'c1' },
      { role: 'user', content: 'And 3+3?' },
    ];
    expect(t !== undefined && 'prompt_ids' in t ? t.prompt_ids : []).toEqual(
      tokenizer.applyChatTemplate(clean, { tools: [CALCULATOR_SCHEMA], addGenerationPrompt: true }),
    );
  });

  it.each([
    [{ samples: [] }, 'samples'],
    [{ samples: [{ prompt: [{ role: 'robot', content: 'x' }] }] }, 'samples[0].prompt[0].role'],
    [{ samples: [{ prompt: [{ role: 'user', content: 'x' }], agent_name: 'swe_agent' }] }, 'samples[0].agent_name'],
    [{ samples: [{ prompt: [{ role: 'user', content: 'x' }] }], n: 0 }, 'n'],
    [{ samples: [{ prompt: [{ role: 'user', content: 'x' }] }], sampling: { top_p: 2 } }, 'sampling.top_p'],
    [{ samples: [{ prompt: [{ role: 'user', content: 'x' }] }], limits: { tool_response_truncate_side: 'up' } }, 'limits.tool_response_truncate_side'],
    [
      { samples: [{ prompt: [{ role: 'user', content: 'x' }], agent_name: 'tool_agent', interaction_kwargs: { name: 'nope' } }] },
      'samples[0].interaction_kwargs.name',
    ],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const res = await app().request('/v1/rollouts', post(body));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await json<Problem>(res)).error.message).toContain(`${field}:`);
  });
});

describe('OpenAI-compatible routes', () => {
  it('lists the served model', async () => {
    expect(await json(await app().request('/v1/models'))).toEqual({
      object: 'list',
      data: [{ id: 'scripted', object: 'model', created: 1_700_000_000, owned_by: 'rl-generation', root: 'scripted' }],
    });
  });

  it('completes token-id prompts with log-probs, token ids as `token_id:N`, n choices per prompt', async () => {
    const res = await app().request(
      '/v1/completions',
      post({ model: 'scripted', prompt: [[1, 2], [3]], max_tokens: 3, n: 2, logprobs: 1, return_tokens_as_token_ids: true, return_token_ids: true }),
    );
    const body = await json<CompletionResponse>(res);
    expect(body.choices).toHaveLength(4);
    expect(body.choices[1]).toMatchObject({ index: 1, text: 'Hel', finish_reason: 'length', token_ids: [72, 101, 108], prompt_token_ids: [1, 2] });
    expect(body.choices[1]?.logprobs?.tokens).toEqual(['token_id:72', 'token_id:101', 'token_id:108']);
    expect(body.usage).toEqual({ prompt_tokens: 3, completion_tokens: 12, total_tokens: 15 });
  });

  it('refuses another model name with 404', async () => {
    expect((await app().request('/v1/completions', post({ model: 'gpt-4', prompt: 'x' }))).status).toBe(404);
  });

  it('streams a chat completion as SSE ending in [DONE]', async () => {
    const res = await app(() => 'héllo').request(
      '/v1/chat/completions',
      post({ messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
    );
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice(6));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as ChatChunk);
    const text = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? '')).join('');
    expect(text).toBe('héllo');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: tokenizer.encode('héllo').length + 1 } });
  });

  it('parses Hermes tool calls into tool_calls when tools are offered', async () => {
    const a = app(() => 'Sure. <tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>');
    const tools = [{ type: 'function', function: { name: 'calculator', parameters: { type: 'object', properties: {} } } }];
    const body = await json<ChatCompletionResponse>(
      await a.request('/v1/chat/completions', post({ messages: [{ role: 'user', content: '2+2?' }], tools, logprobs: true, top_logprobs: 1 })),
    );
    const choice = body.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    // The text before the first <tool_call>, untrimmed, as vLLM's hermes parser returns it.
    expect(choice?.message.content).toBe('Sure. ');
    expect(choice?.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } },
    ]);
    expect(choice?.logprobs?.content[0]).toMatchObject({ token: 'S', bytes: [83], top_logprobs: [{ token: 'S' }] });
  });

  it('leaves the whole text as content when one tool call does not parse (vLLM’s all-or-nothing)', async () => {
    const text = '<tool_call>{"name": "calculator", "arguments": {"expression": "1"}}</tool_call><tool_call>{"name": </tool_call>';
    const tools = [{ type: 'function', function: { name: 'calculator' } }];
    const body = await json<ChatCompletionResponse>(
      await app(() => text).request('/v1/chat/completions', post({ messages: [{ role: 'user', content: 'x' }], tools })),
    );
    expect(body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: text } });
    expect(body.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('templates a tool-call history as vLLM does: arguments decoded for the template, tools passed, bad arguments a 400', async () => {
    const a = app();
    const messages = [
      { role: 'user', content: '2+2?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '4' },
    ];
    const { tokens } = await json<{ tokens: number[] }>(await a.request('/tokenize', post({ messages, tools: [CALCULATOR_SCHEMA] })));
    const call = { id: 'c1', type: 'function' as const, function: { name: 'calculator', arguments: { expression: '2+2' } } };
    const expected = tokenizer.applyChatTemplate(
      [
        { role: 'user', content: '2+2?' },
        { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', content: '4', tool_call_id: 'c1' },
      ],
      { tools: [CALCULATOR_SCHEMA], addGenerationPrompt: true },
    );
    expect(tokens).toEqual(expected);
    expect(tokenizer.decode(tokens)).toContain('assistant\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>');
    const bad = [messages[0], { ...messages[1], tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":' } }] }];
    const res = await a.request('/v1/chat/completions', post({ messages: bad }));
    expect(res.status).toBe(400);
    expect((await json<Problem>(res)).error.message).toMatch(/messages\[1\]\.tool_calls\[0\]\.function\.arguments: not valid JSON/);
  });

  it('tokenizes prompts and messages like vLLM, and detokenizes', async () => {
    const a = app();
    expect(await json(await a.request('/tokenize', post({ prompt: 'hi' })))).toMatchObject({ count: 2, tokens: [104, 105] });
    const chat = await json<{ tokens: number[] }>(await a.request('/tokenize', post({ messages: [{ role: 'user', content: 'hi' }] })));
    expect(chat.tokens).toEqual(tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true }));
    expect(await json(await a.request('/detokenize', post({ tokens: chat.tokens })))).toEqual({
      prompt: '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n',
    });
    expect((await a.request('/tokenize', post({}))).status).toBe(400);
  });
});
