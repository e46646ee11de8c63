import { randomUUID } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { problemDoc, type AppEnv } from '@rl/service-kit';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { InferenceBackend } from './core/backend.ts';
import { createChatCompletion } from './openai-compat/chat.ts';
import { createCompletion } from './openai-compat/completions.ts';
import { toChatMessages, toToolSchemas } from './openai-compat/convert.ts';
import { openTokenSession, type OpenAiContext } from './openai-compat/session.ts';
import {
  ChatCompletionRequest,
  ChatCompletionResponse,
  CompletionRequest,
  CompletionResponse,
  DetokenizeRequest,
  DetokenizeResponse,
  ModelList,
  TokenizeRequest,
  TokenizeResponse,
} from './schemas/openai.ts';

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
const errors = {
  400: problemDoc('Malformed request; the message names the failing field'),
  404: problemDoc('Unknown model'),
  503: problemDoc('No token-level backend (a chat-only upstream)'),
};
const sse = { 'text/event-stream': { schema: z.string().openapi({ description: '`data: {chunk}` events, then `data: [DONE]`' }) } };

const completionsRoute = createRoute({
  method: 'post',
  path: '/v1/completions',
  operationId: 'createCompletion',
  tags: ['openai'],
  summary: 'OpenAI completions for the served model (token-id prompts, log-probs, vLLM extensions; `stream` as SSE)',
  request: { body: { required: true, content: json(CompletionRequest) } },
  responses: { 200: { description: 'The completion, or its SSE stream when `stream` is true', content: { ...json(CompletionResponse), ...sse } }, ...errors },
});

const chatRoute = createRoute({
  method: 'post',
  path: '/v1/chat/completions',
  operationId: 'createChatCompletion',
  tags: ['openai'],
  summary: 'OpenAI chat completions for the served model (tools as Hermes tool calls; `stream` as SSE)',
  request: { body: { required: true, content: json(ChatCompletionRequest) } },
  responses: {
    200: { description: 'The chat completion, or its SSE stream when `stream` is true', content: { ...json(ChatCompletionResponse), ...sse } },
    ...errors,
  },
});

const modelsRoute = createRoute({
  method: 'get',
  path: '/v1/models',
  operationId: 'listModels',
  tags: ['openai'],
  summary: 'The served model',
  responses: { 200: { description: 'One model', content: json(ModelList) } },
});

const tokenizeRoute = createRoute({
  method: 'post',
  path: '/tokenize',
  operationId: 'tokenize',
  tags: ['openai'],
  summary: 'vLLM-compatible tokenization of a prompt or of chat messages (with the chat template)',
  request: { body: { required: true, content: json(TokenizeRequest) } },
  responses: { 200: { description: 'Token ids', content: json(TokenizeResponse) }, ...errors },
});

const detokenizeRoute = createRoute({
  method: 'post',
  path: '/detokenize',
  operationId: 'detokenize',
  tags: ['openai'],
  summary: 'vLLM-compatible detokenization (special tokens kept)',
  request: { body: { required: true, content: json(DetokenizeRequest) } },
  responses: { 200: { description: 'Text', content: json(DetokenizeResponse) }, ...errors },
});

/** OpenAI-compatible route definitions (part of the OpenAPI document). */
export const openAiRoutes = [completionsRoute, chatRoute, modelsRoute, tokenizeRoute, detokenizeRoute];

function contextOf(prefix: string): OpenAiContext {
  return {
    id: `${prefix}-${randomUUID().replaceAll('-', '')}`,
    created: Math.floor(Date.now() / 1000),
    newCallId: () => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
  };
}

/** Sends pre-built chunks as server-sent events, ending with `data: [DONE]`. */
function streamChunks(c: Context, chunks: object[]): Response {
  return streamSSE(c, async (stream) => {
    for (const chunk of chunks) await stream.writeSSE({ data: JSON.stringify(chunk) });
    await stream.writeSSE({ data: '[DONE]' });
  });
}

/**
 * Adds the OpenAI-compatible routes, so the official `openai` client (and our
 * own `openai` backend, through `/tokenize`) can use the served model.
 * Generation is not incremental: a stream sends the finished generation token by token.
 */
export function addOpenAiRoutes(app: OpenAPIHono<AppEnv>, backend: InferenceBackend, startedAtS: number): void {
  app.openapi(completionsRoute, async (c) => {
    const { response, chunks } = await createCompletion(backend, c.req.valid('json'), contextOf('cmpl'));
    return chunks === undefined ? c.json(response, 200) : streamChunks(c, chunks);
  });
  app.openapi(chatRoute, async (c) => {
    const { response, chunks } = await createChatCompletion(backend, c.req.valid('json'), contextOf('chatcmpl'));
    return chunks === undefined ? c.json(response, 200) : streamChunks(c, chunks);
  });
  app.openapi(modelsRoute, (c) =>
    c.json(
      {
        object: 'list' as const,
        data: [{ id: backend.model, object: 'model' as const, created: startedAtS, owned_by: 'rl-generation', root: backend.currentVersion() }],
      },
      200,
    ),
  );
  app.openapi(tokenizeRoute, async (c) => {
    const body = c.req.valid('json');
    const session = await openTokenSession(backend);
    try {
      const tokens =
        body.messages !== undefined
          ? await session.codec.encodeChat(toChatMessages(body.messages), {
              tools: toToolSchemas({ tools: body.tools }),
              templateArgs: body.chat_template_kwargs ?? undefined,
              addGenerationPrompt: body.add_generation_prompt ?? true,
            })
          : await session.codec.encode(body.prompt ?? '');
      return c.json({ count: tokens.length, max_model_len: session.maxSequenceLength ?? 0, tokens }, 200);
    } finally {
      session.release();
    }
  });
  app.openapi(detokenizeRoute, async (c) => {
    const session = await openTokenSession(backend);
    try {
      return c.json({ prompt: await session.codec.decode(c.req.valid('json').tokens, { keepSpecial: true }) }, 200);
    } finally {
      session.release();
    }
  });
}
