// Chat templates: jinja rendered by @huggingface/jinja, which follows
// transformers' environment (trim_blocks, lstrip_blocks, loopcontrols, a
// json.dumps-like `tojson`, raise_exception, strftime_now).
import { Template } from '@huggingface/jinja';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage, ChatTemplateOptions } from '../types.ts';

/**
 * ChatML (`<|im_start|>role\ncontent<|im_end|>\n`, then `<|im_start|>assistant\n`
 * with add_generation_prompt), the byte tokenizer's and trained BPEs' template.
 * Tools go into the system turn and assistant tool calls into `<tool_call>`
 * blocks, Hermes style (as Qwen2.5's template); without them the output is plain ChatML.
 */
export const CHATML_TEMPLATE = `{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\\n\\n' }}
    {%- endif %}
    {{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}
    {%- for tool in tools %}
        {{- '\\n' }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- '\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if not (tools and loop.first and message.role == 'system') %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content }}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if message.content or not loop.first %}
                    {{- '\\n' }}
                {%- endif %}
                {{- '<tool_call>\\n{"name": "' + tool_call.function.name + '", "arguments": ' }}
                {%- if tool_call.function.arguments is string %}
                    {{- tool_call.function.arguments }}
                {%- else %}
                    {{- tool_call.function.arguments | tojson }}
                {%- endif %}
                {{- '}\\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
`;

/** The char tokenizer's template: the contents back to back (verl's digit task has raw string prompts). */
export const CONCAT_TEMPLATE = '{%- for message in messages %}{{- message.content }}{%- endfor %}';

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

/** Special-token strings a template may refer to (transformers passes the tokenizer's special_tokens_map). */
export interface TemplateSpecials {
  bos_token?: string | null;
  eos_token?: string | null;
  pad_token?: string | null;
  unk_token?: string | null;
}

/** A compiled chat template. */
export class ChatTemplate {
  readonly source: string;
  readonly #template: Template | null;
  readonly #specials: Record<string, string>;

  /**
   * Compiles `source` (empty = no template); a syntax error is a `validation_failed`
   * naming `where` (e.g. `tokenizer_config.json: chat_template`).
   */
  constructor(source: string, specials: TemplateSpecials, where: string) {
    this.source = source;
    this.#specials = Object.fromEntries(Object.entries(specials).filter((e): e is [string, string] => typeof e[1] === 'string'));
    if (source === '') {
      this.#template = null;
      return;
    }
    try {
      this.#template = new Template(source);
    } catch (err) {
      throw new AppError(ErrorCode.ValidationFailed, `${where}: not a valid jinja template (${(err as Error).message})`, { cause: err });
    }
  }

  /** Renders the chat; bad messages and the template's raise_exception are 400s. */
  render(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    if (this.#template === null) {
      // A configuration problem, not a bad chat: callers that skip bad rows must not skip it.
      throw new AppError(ErrorCode.InvalidConfig, 'the tokenizer has no chat template (tokenizer_config.json chat_template or chat_template.jinja)');
    }
    messages.forEach((m, i) => {
      if (!ROLES.has(m.role)) throw new AppError(ErrorCode.BadRequest, `messages[${i}].role must be one of ${[...ROLES].join(', ')}`);
      if (typeof m.content !== 'string') throw new AppError(ErrorCode.BadRequest, `messages[${i}].content must be a string`);
    });
    // A JSON copy drops keys set to undefined, which jinja would see as defined.
    const variables = {
      ...this.#specials,
      ...(options.templateArgs === undefined ? {} : (plain(options.templateArgs) as Record<string, unknown>)),
      messages: plain(messages),
      tools: options.tools === undefined ? null : plain(options.tools),
      documents: null,
      add_generation_prompt: options.addGenerationPrompt ?? false,
    };
    try {
      return this.#template.render(variables);
    } catch (err) {
      throw new AppError(ErrorCode.BadRequest, `chat template: ${(err as Error).message}`, { cause: err });
    }
  }
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
