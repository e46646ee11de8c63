import { z } from '@hono/zod-openapi';

// OpenAI's request shapes, lenient on fields we do not use (clients send many),
// with vLLM's extensions (top_k, stop_token_ids, return_tokens_as_token_ids, return_token_ids).

const MAX_TOKENS = 1_000_000;
const Stop = z.union([z.string().max(256), z.array(z.string().max(256)).max(16)]).nullish();

const SamplingFields = {
  model: z.string().max(256).optional(),
  temperature: z.number().min(0).max(100).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.number().int().min(-1).nullish().openapi({ description: 'vLLM extension; -1 or 0 disables' }),
  n: z.number().int().min(1).max(128).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  stop: Stop,
  stop_token_ids: z.array(z.number().int().min(0)).max(64).nullish().openapi({ description: 'vLLM extension' }),
  seed: z.number().int().nullish(),
};

const TokenIds = z.array(z.number().int().min(0)).min(1);

/** `POST /v1/completions`. */
export const CompletionRequest = z
  .looseObject({
    ...SamplingFields,
    prompt: z.union([z.string(), z.array(z.string()).min(1).max(1024), TokenIds, z.array(TokenIds).min(1).max(1024)]),
    max_tokens: z.number().int().min(1).max(MAX_TOKENS).nullish().openapi({ description: '@default 16' }),
    logprobs: z.number().int().min(0).max(20).nullish(),
    echo: z.boolean().nullish(),
    return_tokens_as_token_ids: z.boolean().nullish().openapi({ description: 'vLLM extension: logprobs tokens as `token_id:<id>`' }),
    return_token_ids: z.boolean().nullish().openapi({ description: 'vLLM extension: add `token_ids` and `prompt_token_ids` to each choice' }),
  })
  .openapi('CompletionRequest');
export type CompletionRequest = z.infer<typeof CompletionRequest>;

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const ToolCall = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** A chat message as OpenAI clients send it. */
export const OpenAiMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
  tool_calls: z.array(ToolCall).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
});

const ChatTemplateKwargs = z
  .record(z.string(), z.unknown())
  .nullish()
  .openapi({ description: 'vLLM extension: extra chat-template variables, e.g. `{"enable_thinking": false}` for Qwen3' });
export type OpenAiMessage = z.infer<typeof OpenAiMessage>;

/** An OpenAI function tool. */
export const OpenAiTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1).max(64), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
});

/** `POST /v1/chat/completions`. */
export const ChatCompletionRequest = z
  .looseObject({
    ...SamplingFields,
    messages: z.array(OpenAiMessage).min(1).max(1024),
    max_tokens: z.number().int().min(1).max(MAX_TOKENS).nullish(),
    max_completion_tokens: z.number().int().min(1).max(MAX_TOKENS).nullish(),
    logprobs: z.boolean().nullish(),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    tools: z.array(OpenAiTool).max(128).nullish(),
    tool_choice: z.unknown().optional().openapi({ description: '`none` hides the tools; anything else is `auto`' }),
    chat_template_kwargs: ChatTemplateKwargs,
  })
  .openapi('ChatCompletionRequest');
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

const Usage = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });

/** `POST /v1/completions` reply (non-streaming). */
export const CompletionResponse = z
  .object({
    id: z.string(),
    object: z.literal('text_completion'),
    created: z.number().int(),
    model: z.string(),
    system_fingerprint: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        text: z.string(),
        logprobs: z
          .object({
            tokens: z.array(z.string()),
            token_logprobs: z.array(z.number()),
            top_logprobs: z.array(z.record(z.string(), z.number())).nullable(),
            text_offset: z.array(z.number().int()),
          })
          .nullable(),
        finish_reason: z.enum(['stop', 'length']),
        token_ids: z.array(z.number().int()).optional(),
        prompt_token_ids: z.array(z.number().int()).optional(),
      }),
    ),
    usage: Usage,
  })
  .openapi('CompletionResponse');
export type CompletionResponse = z.infer<typeof CompletionResponse>;

const TokenLogprob = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.number().int()),
  top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()) })),
});

/** `POST /v1/chat/completions` reply (non-streaming). */
export const ChatCompletionResponse = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    system_fingerprint: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          tool_calls: z
            .array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) }))
            .optional(),
        }),
        logprobs: z.object({ content: z.array(TokenLogprob) }).nullable(),
        finish_reason: z.enum(['stop', 'length', 'tool_calls']),
      }),
    ),
    usage: Usage,
  })
  .openapi('ChatCompletionResponse');
export type ChatCompletionResponse = z.infer<typeof ChatCompletionResponse>;

/** `GET /v1/models`. */
export const ModelList = z
  .object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        id: z.string(),
        object: z.literal('model'),
        created: z.number().int(),
        owned_by: z.string(),
        max_model_len: z.number().int().optional(),
        root: z.string().optional(),
      }),
    ),
  })
  .openapi('ModelList');
export type ModelList = z.infer<typeof ModelList>;

/** vLLM `POST /tokenize`: a prompt, or chat messages through the chat template. */
export const TokenizeRequest = z
  .looseObject({
    model: z.string().optional(),
    prompt: z.string().optional(),
    add_special_tokens: z.boolean().nullish(),
    messages: z.array(OpenAiMessage).min(1).max(1024).optional(),
    add_generation_prompt: z.boolean().nullish().openapi({ description: '@default true' }),
    tools: z.array(OpenAiTool).nullish(),
    chat_template_kwargs: ChatTemplateKwargs,
  })
  .refine((b) => (b.prompt === undefined) !== (b.messages === undefined), { message: 'give either prompt or messages', path: ['prompt'] })
  .openapi('TokenizeRequest');
export type TokenizeRequest = z.infer<typeof TokenizeRequest>;

/** vLLM `POST /tokenize` reply. */
export const TokenizeResponse = z
  .object({ count: z.number().int(), max_model_len: z.number().int(), tokens: z.array(z.number().int()) })
  .openapi('TokenizeResponse');

/** vLLM `POST /detokenize`. */
export const DetokenizeRequest = z
  .looseObject({ model: z.string().optional(), tokens: z.array(z.number().int().min(0)).max(1_000_000) })
  .openapi('DetokenizeRequest');
/** vLLM `POST /detokenize` reply. */
export const DetokenizeResponse = z.object({ prompt: z.string() }).openapi('DetokenizeResponse');
