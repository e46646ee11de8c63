import { allParsed, parseHermesToolCalls } from '../core/agent/hermes-parser.ts';
import type { BackendGeneration, InferenceBackend, TokenSession } from '../core/backend.ts';
import type { ChatCompletionRequest, ChatCompletionResponse } from '../schemas/openai.ts';
import { samplingOf, toChatMessages, toToolSchemas } from './convert.ts';
import { completionText, tokenPieces } from './pieces.ts';
import { checkModel, checkPromptRoom, openTokenSession, type OpenAiContext } from './session.ts';

type ChatChoice = ChatCompletionResponse['choices'][number];
type TokenLogprob = NonNullable<ChatChoice['logprobs']>['content'][number];
type ToolCalls = NonNullable<ChatChoice['message']['tool_calls']>;

const encoder = new TextEncoder();

async function tokenLogprobs(session: TokenSession, gen: BackendGeneration, top: number): Promise<TokenLogprob[]> {
  return Promise.all(
    gen.tokenIds.map(async (id, i) => {
      const token = await session.codec.decode([id], { keepSpecial: true });
      const entry = { token, logprob: gen.logprobs[i] ?? 0, bytes: Array.from(encoder.encode(token)) };
      return { ...entry, top_logprobs: top > 0 ? [entry] : [] };
    }),
  );
}

/**
 * The assistant message. With tools offered, Hermes `<tool_call>` blocks become
 * `tool_calls` and the content is the text before them (null when empty), as
 * vLLM's `hermes` parser does; one block that does not parse leaves the whole
 * text as content and no calls.
 */
function messageOf(text: string, toolsOffered: boolean, ctx: OpenAiContext): { content: string | null; toolCalls: ToolCalls } {
  if (!toolsOffered) return { content: text, toolCalls: [] };
  const { content, calls } = parseHermesToolCalls(text);
  if (!allParsed(calls)) return { content: text, toolCalls: [] };
  const toolCalls = calls.map((c) => ({ id: ctx.newCallId(), type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
  return { content: content === '' ? null : content, toolCalls };
}

/** A finished chat completion: the JSON reply, plus the SSE chunks when `stream` was asked. */
export interface ChatResult {
  response: ChatCompletionResponse;
  chunks: object[] | undefined;
}

/**
 * `POST /v1/chat/completions` over the backend: messages and tools through the
 * model's own chat template, `n`
 * choices, log-probs of the sampled tokens, and tool calls parsed back out.
 */
export async function createChatCompletion(backend: InferenceBackend, req: ChatCompletionRequest, ctx: OpenAiContext): Promise<ChatResult> {
  checkModel(backend, req.model);
  const messages = toChatMessages(req.messages);
  const tools = toToolSchemas(req);
  const templateArgs = req.chat_template_kwargs ?? undefined;
  const session = await openTokenSession(backend);
  try {
    const promptIds = await session.codec.encodeChat(messages, { tools, templateArgs, addGenerationPrompt: true });
    checkPromptRoom(session, promptIds.length, 'messages');
    const room = session.maxSequenceLength === undefined ? 1024 : session.maxSequenceLength - promptIds.length;
    const maxTokens = Math.min(req.max_completion_tokens ?? req.max_tokens ?? room, room);
    const n = req.n ?? 1;
    const gens = await Promise.all(Array.from({ length: n }, (_, k) => session.generate({ promptIds, params: samplingOf(req, maxTokens, k, n) })));
    const stop = samplingOf(req, 1, 0, 1).stop;
    const base = { id: ctx.id, created: ctx.created, model: backend.model, system_fingerprint: session.modelVersion };
    const built = await Promise.all(
      gens.map(async (gen, index) => {
        const text = await completionText(session.codec, gen, stop);
        const { content, toolCalls } = messageOf(text, tools !== undefined, ctx);
        const logprobs = req.logprobs === true ? await tokenLogprobs(session, gen, req.top_logprobs ?? 0) : undefined;
        const finish: ChatChoice['finish_reason'] = toolCalls.length > 0 ? 'tool_calls' : gen.finishReason;
        const choice: ChatChoice = {
          index,
          message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
          logprobs: logprobs === undefined ? null : { content: logprobs },
          finish_reason: finish,
        };
        return { choice, gen, text, logprobs };
      }),
    );
    const completion = gens.reduce((s, g) => s + g.tokenIds.length, 0);
    const response: ChatCompletionResponse = {
      ...base,
      object: 'chat.completion',
      choices: built.map((b) => b.choice),
      usage: { prompt_tokens: promptIds.length, completion_tokens: completion, total_tokens: promptIds.length + completion },
    };
    if (req.stream !== true) return { response, chunks: undefined };
    const chunkBase = { ...base, object: 'chat.completion.chunk' as const };
    const chunks: object[] = [];
    for (const b of built) {
      const { index, message, finish_reason } = b.choice;
      chunks.push({ ...chunkBase, choices: [{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
      if (message.tool_calls !== undefined) {
        // Tool calls arrive whole: the content around them, then the calls.
        if (message.content !== null)
          chunks.push({ ...chunkBase, choices: [{ index, delta: { content: message.content }, logprobs: null, finish_reason: null }] });
        const calls = message.tool_calls.map((c, k) => ({ index: k, ...c }));
        chunks.push({ ...chunkBase, choices: [{ index, delta: { tool_calls: calls }, logprobs: null, finish_reason: null }] });
      } else {
        const pieces = await tokenPieces(session.codec, b.gen.tokenIds, b.text);
        pieces.forEach((content, i) => {
          const lp = b.logprobs?.[i];
          chunks.push({ ...chunkBase, choices: [{ index, delta: { content }, logprobs: lp === undefined ? null : { content: [lp] }, finish_reason: null }] });
        });
      }
      chunks.push({ ...chunkBase, choices: [{ index, delta: {}, logprobs: null, finish_reason }] });
    }
    if (req.stream_options?.include_usage === true) chunks.push({ ...chunkBase, choices: [], usage: response.usage });
    return { response, chunks };
  } finally {
    session.release();
  }
}
