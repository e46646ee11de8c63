// The embedded policy's public contract, shared by the generation service (which
// samples from it) and the trainer's policy worker (which also trains it). The
// implementation lives beside this file; callers depend only on these types.

/** A function call an assistant turn makes (OpenAI shape; `arguments` is JSON text or an object). */
export interface ToolCall {
  id?: string;
  type?: 'function';
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** A chat message as verl's parquet `prompt` column and OpenAI's chat API carry it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ToolCall[];
  /** On a `tool` message: the call it answers. */
  tool_call_id?: string;
  name?: string;
  /** An assistant turn's thinking, for templates that render it (Qwen3). */
  reasoning_content?: string;
}

/** A tool offered to the model (OpenAI function schema), rendered by the chat template. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** What a chat template is rendered with besides the messages (transformers' apply_chat_template arguments). */
export interface ChatTemplateOptions {
  /** Open the assistant's turn at the end. @default false */
  addGenerationPrompt?: boolean;
  tools?: readonly ToolSchema[];
  /** Extra template variables, e.g. `{ enable_thinking: false }` for Qwen3. */
  templateArgs?: Record<string, unknown>;
}

/** Turns text into token ids and back, and chats into prompts. */
export interface Tokenizer {
  /** `char` (fixed alphabet, e.g. verl's digit-completion task), `byte` (UTF-8 bytes) or `hf` (a tokenizer.json). */
  readonly kind: 'char' | 'byte' | 'hf';
  readonly vocabSize: number;
  readonly padId: number;
  /** null when the tokenizer has no BOS token (Qwen). */
  readonly bosId: number | null;
  readonly eosId: number;
  /** Every id that ends generation: the EOS token, then generation_config.json's eos_token_id. */
  readonly eosIds: readonly number[];
  /** Special tokens by name (`<pad>`, `<bos>`, `<eos>`, `<|im_start|>`, ...). */
  readonly special: Readonly<Record<string, number>>;
  /** The jinja chat template; empty when the tokenizer has none (applyChatTemplate then fails). */
  readonly chatTemplate: string;
  /** Plain text to ids; special-token strings inside `text` are encoded as specials only when `allowSpecial`. */
  encode(text: string, options?: { allowSpecial?: boolean }): number[];
  /** Ids to text; specials are dropped unless `keepSpecial`. Invalid UTF-8 from a byte tokenizer becomes U+FFFD. */
  decode(ids: readonly number[], options?: { keepSpecial?: boolean }): string;
  /** The chat template rendered as transformers renders it (jinja2, trim_blocks and lstrip_blocks). */
  renderChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string;
  /** Prompt ids: the rendered template tokenized with special tokens recognised (transformers' apply_chat_template(tokenize=True)). */
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): number[];
}

/** Sampling parameters (vLLM/OpenAI names and semantics). */
export interface SamplingParams {
  /** 0 means greedy. @default 1 */
  temperature?: number;
  /** 0 or -1 means no top-k. @default 0 */
  topK?: number;
  /** @default 1 */
  topP?: number;
  maxTokens: number;
  /** Generation stops after emitting any of these ids (the id is included in the output). @default the tokenizer's eosIds (as vLLM, generation_config.json's eos ids too) */
  stopTokenIds?: number[];
  /** Generation stops when the decoded text ends with any of these; the stop string is removed from the text, not from the ids. */
  stop?: string[];
  /** Seed for this request's RNG; equal seeds and inputs give equal outputs. */
  seed?: number;
  /**
   * One seed per prompt, overriding `seed` (row i samples from `rowSeeds[i]`):
   * lets a server batch requests that each carry their own seed without
   * changing what any of them samples.
   */
  rowSeeds?: number[];
}

/** One generated continuation. */
export interface Generation {
  tokenIds: number[];
  /** Log-prob of each generated token under the sampling distribution before temperature (as vLLM's `logprobs` report it). */
  logprobs: number[];
  finishReason: 'stop' | 'length';
  /** Decoded continuation (specials dropped), cut before a matched stop string; set by the embedded policy. */
  text?: string;
  /** The stop token id or stop string that ended generation, null otherwise (vLLM's `stop_reason`). */
  stopReason?: number | string | null;
}

/** What the generation service needs from a policy. */
export interface PolicyModel {
  /** Version of the loaded weights (e.g. `v3` or a content hash); reported with every trajectory. */
  readonly version: string;
  readonly tokenizer: Tokenizer;
  /** Longest prompt + response the model accepts. */
  readonly maxSequenceLength: number;
  /** Continues each prompt (batched internally; uses the KV cache). */
  generate(prompts: readonly number[][], params: SamplingParams, signal?: AbortSignal): Promise<Generation[]>;
  /** Log-prob of every response token given its prompt (teacher forcing); one array per pair. */
  logprobs(pairs: ReadonlyArray<{ prompt: readonly number[]; response: readonly number[] }>): Promise<Float32Array[]>;
}
