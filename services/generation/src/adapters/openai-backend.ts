import { AppError, ErrorCode } from '@rl/service-kit';
import type { BackendGeneration, ChatCodec, InferenceBackend, TemplateInput, TextSession, TokenSession } from '../core/backend.ts';
import type { ChatMessage, SamplingParams } from '../core/policy-types.ts';
import type { ServedVersion, VersionLease } from '../core/version-gate.ts';
import type { HttpJsonClient } from './http-json.ts';
import { ChatReply, CompletionReply, DetokenizeReply, TokenizeReply } from './openai-wire.ts';

/** Options of {@link createOpenAiBackend}. */
export interface OpenAiBackendOptions {
  /** Base URL including `/v1`. */
  baseUrl: string;
  /** Model requested from the server (and served by `/v1/models`). */
  model: string;
  /** `tokens`: completions over token ids with log-probs; `chat`: chat completions, text only. */
  mode: 'tokens' | 'chat';
  post: HttpJsonClient;
  /**
   * The policy versions the server serves (INFERENCE_SYNC): each session leases one and asks for its model name;
   * absent, the server's weights are not managed and sessions report `model` as their version.
   */
  versions?: { lease(): Promise<VersionLease>; current(): ServedVersion | undefined };
}

const TOKEN_ID = /^token_id:(-?\d+)$/;

/** vLLM serves `/tokenize` and `/detokenize` beside `/v1`, at the server root. */
export function rootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Sampling fields of a vLLM/OpenAI request; `top_k` only when set (a vLLM extension). */
function samplingBody(p: SamplingParams): Record<string, unknown> {
  return {
    max_tokens: p.maxTokens,
    temperature: p.temperature ?? 1,
    top_p: p.topP ?? 1,
    ...(p.topK !== undefined && p.topK > 0 ? { top_k: p.topK } : {}),
    ...(p.seed !== undefined ? { seed: p.seed } : {}),
    ...(p.stop !== undefined ? { stop: p.stop } : {}),
    ...(p.stopTokenIds !== undefined ? { stop_token_ids: p.stopTokenIds } : {}),
  };
}

/** Token ids of a completion: vLLM's `token_ids`, else `token_id:N` strings of `return_tokens_as_token_ids`. */
export function completionTokens(choice: CompletionReply['choices'][number]): { ids: number[]; logprobs: number[] } {
  const lp = choice.logprobs?.token_logprobs;
  let ids = choice.token_ids ?? undefined;
  if (ids === undefined) {
    const parsed = choice.logprobs?.tokens?.map((t) => TOKEN_ID.exec(t)?.[1]);
    if (parsed?.every((x) => x !== undefined)) ids = parsed.map(Number);
  }
  if (ids === undefined) {
    throw new AppError(
      ErrorCode.UpstreamError,
      'the server returned no token ids (needs vLLM’s return_tokens_as_token_ids or token_ids); use OPENAI_MODE=chat for text-only servers',
    );
  }
  if (lp === undefined || lp === null || lp.length !== ids.length) {
    throw new AppError(ErrorCode.UpstreamError, `the server returned ${lp?.length ?? 0} log-probs for ${ids.length} tokens`);
  }
  return { ids, logprobs: lp.map((x) => x ?? 0) };
}

/**
 * Messages as OpenAI's chat API carries them, which vLLM's `/tokenize` and
 * chat completions both take: tool-call `arguments` as JSON text, every call
 * with an id and type. The server's chat template renders them.
 */
function toWireMessages(messages: readonly ChatMessage[]): Array<Record<string, unknown>> {
  return messages.map((m) => {
    const { tool_calls, ...rest } = m;
    if (tool_calls === undefined || tool_calls.length === 0) return rest;
    return {
      ...rest,
      tool_calls: tool_calls.map((c, k) => ({
        id: c.id ?? `call_${k}`,
        type: 'function',
        function: { name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments) },
      })),
    };
  });
}

/** Template fields of a vLLM request: `tools` and `chat_template_kwargs`, each only when set. */
function templateBody({ tools, templateArgs }: TemplateInput): Record<string, unknown> {
  return {
    ...(tools !== undefined && tools.length > 0 ? { tools } : {}),
    ...(templateArgs !== undefined && Object.keys(templateArgs).length > 0 ? { chat_template_kwargs: templateArgs } : {}),
  };
}

/**
 * Any OpenAI-compatible server (vLLM, SGLang, llama.cpp) as a backend. In
 * `tokens` mode prompts go as token ids to `/v1/completions` with log-probs and
 * `return_tokens_as_token_ids`, and chat templating uses the server's
 * `/tokenize` (vLLM's shape, which this service serves too); in `chat` mode
 * messages go to `/v1/chat/completions` and only text comes back.
 */
export function createOpenAiBackend(o: OpenAiBackendOptions): InferenceBackend {
  const base = o.baseUrl.replace(/\/+$/, '');
  const root = rootOf(o.baseUrl);
  let maxModelLen: number | undefined;

  const codec: ChatCodec = {
    async encodeChat(messages, { addGenerationPrompt, ...template }) {
      const body = { model: o.model, messages: toWireMessages(messages), add_generation_prompt: addGenerationPrompt, ...templateBody(template) };
      const r = await o.post(`${root}/tokenize`, body, TokenizeReply);
      if (r.max_model_len !== undefined) maxModelLen = r.max_model_len;
      return r.tokens;
    },
    async encode(text) {
      return (await o.post(`${root}/tokenize`, { model: o.model, prompt: text, add_special_tokens: false }, TokenizeReply)).tokens;
    },
    async decode(ids) {
      return (await o.post(`${root}/detokenize`, { model: o.model, tokens: ids }, DetokenizeReply)).prompt;
    },
  };

  async function generate(model: string, { promptIds, params, signal }: Parameters<TokenSession['generate']>[0]): Promise<BackendGeneration> {
    const body = { model, prompt: promptIds, ...samplingBody(params), logprobs: 1, return_tokens_as_token_ids: true, return_token_ids: true };
    const reply = await o.post(`${base}/completions`, body, CompletionReply, signal);
    const choice = reply.choices[0] as CompletionReply['choices'][number];
    const { ids, logprobs } = completionTokens(choice);
    return { tokenIds: ids, logprobs, finishReason: choice.finish_reason === 'length' ? 'length' : 'stop', text: choice.text };
  }

  async function chat(model: string, messages: readonly ChatMessage[], template: TemplateInput, params: SamplingParams, signal?: AbortSignal) {
    const body = { model, messages: toWireMessages(messages), ...templateBody(template), ...samplingBody(params) };
    const reply = await o.post(`${base}/chat/completions`, body, ChatReply, signal);
    const choice = reply.choices[0] as (typeof reply.choices)[number];
    return {
      text: choice.message.content ?? '',
      toolCalls: choice.message.tool_calls ?? [],
      finishReason: choice.finish_reason === 'length' ? ('length' as const) : ('stop' as const),
      completionTokens: reply.usage?.completion_tokens ?? 0,
    };
  }

  const unmanaged: VersionLease = { version: o.model, model: o.model, release: () => {} };
  return {
    kind: 'openai',
    model: o.model,
    ready: () => o.versions === undefined || o.versions.current() !== undefined,
    currentVersion: () => (o.versions === undefined ? o.model : (o.versions.current()?.version ?? 'none')),
    async open() {
      const lease = o.versions === undefined ? unmanaged : await o.versions.lease();
      if (o.mode === 'chat') {
        return {
          mode: 'text',
          modelVersion: lease.version,
          chat: (...args) => chat(lease.model, ...args),
          release: lease.release,
        } satisfies TextSession;
      }
      const session: TokenSession = {
        mode: 'tokens',
        modelVersion: lease.version,
        codec,
        get maxSequenceLength() {
          return maxModelLen;
        },
        generate: (req) => generate(lease.model, req),
        release: lease.release,
      };
      return session;
    },
    close: async () => {},
  };
}
