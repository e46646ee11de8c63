import type { ChatMessage, ChatTemplateOptions, Generation, SamplingParams } from './policy-types.ts';

/** What a chat is templated with besides its messages. */
export interface TemplateInput {
  /** Tools offered to the model, rendered by the chat template (Qwen's: a Hermes tools block in the system turn). */
  tools?: ChatTemplateOptions['tools'] | undefined;
  /** Extra chat-template variables (verl's `apply_chat_template_kwargs`, vLLM's `chat_template_kwargs`), e.g. `enable_thinking`. */
  templateArgs?: Record<string, unknown> | undefined;
}

/**
 * Chat-level tokenizer operations of a backend. Async because a remote server
 * (vLLM's `/tokenize`) may be the one applying its chat template.
 */
export interface ChatCodec {
  /** Prompt ids of `messages` through the model's chat template (tools and template variables passed to it), optionally opening an assistant turn. */
  encodeChat(messages: readonly ChatMessage[], options: TemplateInput & { addGenerationPrompt: boolean }): Promise<number[]>;
  /** Plain text to ids (no template, no special tokens). */
  encode(text: string): Promise<number[]>;
  /** Ids to text; special tokens are dropped unless `keepSpecial`. */
  decode(ids: readonly number[], options?: { keepSpecial?: boolean }): Promise<string>;
}

/** One generation request at the token level. */
export interface TokenGenerateRequest {
  promptIds: readonly number[];
  params: SamplingParams;
  signal?: AbortSignal | undefined;
}

/** A generation; `text` when the server decoded it already (saves a detokenize round trip). */
export type BackendGeneration = Generation & { text?: string };

/** A backend pinned for one trajectory: the weights cannot change under it until `release()`. */
export interface TokenSession {
  readonly mode: 'tokens';
  /** Version of the weights that serve this session (`unknown` when the server does not say). */
  readonly modelVersion: string;
  readonly codec: ChatCodec;
  /** Longest prompt + response the backend accepts, when known. */
  readonly maxSequenceLength: number | undefined;
  /** Continues `promptIds`: generated ids, their log-probs and why generation stopped. */
  generate(req: TokenGenerateRequest): Promise<BackendGeneration>;
  release(): void;
}

/** A text-only generation (OpenAI chat completions without token ids). */
export interface TextGeneration {
  text: string;
  /** Tool calls the server parsed out of the reply itself (vLLM with a tool parser); absent or empty otherwise. */
  toolCalls?: ReadonlyArray<{ id?: string | undefined; function: { name: string; arguments: string } }>;
  finishReason: 'stop' | 'length';
  /** Tokens the server counted for this completion (`usage.completion_tokens`). */
  completionTokens: number;
}

/** A chat-completions-only backend: messages in, text out, no token ids or log-probs. */
export interface TextSession {
  readonly mode: 'text';
  readonly modelVersion: string;
  chat(messages: readonly ChatMessage[], template: TemplateInput, params: SamplingParams, signal?: AbortSignal): Promise<TextGeneration>;
  release(): void;
}

/** What an agent loop drives for one trajectory. */
export type BackendSession = TokenSession | TextSession;

/** Kinds of inference backend. */
export const BackendKind = { Embedded: 'embedded', OpenAi: 'openai', Scripted: 'scripted' } as const;
/** Union of backend kinds. */
export type BackendKind = (typeof BackendKind)[keyof typeof BackendKind];

/** An inference backend: the embedded policy, an OpenAI-compatible server, or a script (tests). */
export interface InferenceBackend {
  readonly kind: BackendKind;
  /** Model name served by `/v1/models` and reported with trajectories. */
  readonly model: string;
  /** Pins the backend (and its current weights) for one trajectory or one OpenAI request. */
  open(): Promise<BackendSession>;
  /** True once weights are loaded / the server is configured. */
  ready(): boolean;
  /** Version of the weights new sessions get. */
  currentVersion(): string;
  close(): Promise<void>;
}
