import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { z } from 'zod';
import { AppError, ErrorCode, validationError } from '@rl/service-kit/core';
import { ChatTemplate } from './chat-template.ts';
import { specialNames, splitOnSpecials } from './special-tokens.ts';
import type { ChatMessage, ChatTemplateOptions, Tokenizer } from '../types.ts';

const AddedTokenJson = z.object({ id: z.number().int().min(0), content: z.string(), special: z.boolean().optional() }).loose();

/**
 * Serialisable config of an {@link HfTokenizer}: a Hugging Face tokenizer.json, inline,
 * and what tokenizer_config.json / generation_config.json add to it.
 */
export const HfTokenizerConfig = z
  .object({
    kind: z.literal('hf'),
    /** The tokenizer.json object (e.g. what `trainBpe` returns, or Qwen's), added tokens included. */
    tokenizer: z
      .object({
        model: z.object({ type: z.string() }).loose(),
        added_tokens: z.array(AddedTokenJson).optional(),
      })
      .loose(),
    /** Jinja chat template (tokenizer_config.json `chat_template`); null = none. */
    chatTemplate: z.string().nullable().default(null),
    /** Token strings of tokenizer_config.json `bos_token`, `eos_token`, `pad_token`; null = none. */
    bosToken: z.string().nullable().default(null),
    eosToken: z.string().nullable().default(null),
    padToken: z.string().nullable().default(null),
    /** tokenizer_config.json `add_bos_token`; kept for the files we write (chat templates add their own BOS). */
    addBosToken: z.boolean().default(false),
    /** generation_config.json `eos_token_id`: more ids that end generation. */
    eosTokenIds: z.array(z.number().int().min(0)).default([]),
  })
  .strict();
export type HfTokenizerConfig = z.output<typeof HfTokenizerConfig>;
/** What {@link HfTokenizer} accepts: the config with its defaults optional. */
export type HfTokenizerConfigInput = z.input<typeof HfTokenizerConfig>;

/**
 * A tokenizer.json tokenizer (encoding and decoding by `@huggingface/tokenizers`)
 * with its own chat template. The EOS is `eosToken` (else generation_config's first
 * eos id); the pad is `padToken`, else the EOS; the BOS may be absent (Qwen).
 */
export class HfTokenizer implements Tokenizer {
  readonly kind = 'hf' as const;
  readonly config: HfTokenizerConfig;
  readonly vocabSize: number;
  readonly padId: number;
  readonly bosId: number | null;
  readonly eosId: number;
  readonly eosIds: readonly number[];
  readonly special: Readonly<Record<string, number>>;
  readonly chatTemplate: string;
  readonly #impl: HfTokenizerImpl;
  readonly #names: Map<number, string>;
  /** Added tokens that are not special: transformers always matches them in text (Qwen's `<think>`, `<tool_call>`). */
  readonly #plainAdded: Readonly<Record<string, number>>;
  readonly #template: ChatTemplate;

  constructor(input: HfTokenizerConfigInput) {
    const parsed = HfTokenizerConfig.safeParse(input);
    if (!parsed.success) throw validationError(parsed.error, 'tokenizer config');
    const config = parsed.data;
    this.config = config;
    try {
      this.#impl = new HfTokenizerImpl(config.tokenizer, {});
    } catch (err) {
      throw new AppError(ErrorCode.BadRequest, `tokenizer config: not a usable tokenizer.json (${(err as Error).message})`, { cause: err });
    }
    const added = config.tokenizer.added_tokens ?? [];
    this.special = Object.freeze(Object.fromEntries(added.filter((t) => t.special === true).map((t) => [t.content, t.id])));
    this.#plainAdded = Object.fromEntries(added.filter((t) => t.special !== true).map((t) => [t.content, t.id]));
    this.#names = specialNames(this.special);
    const model = this.#impl.model;
    if (model === null) throw new AppError(ErrorCode.BadRequest, 'tokenizer config: tokenizer.json has no model');
    this.vocabSize = Math.max(model.vocab.length, ...added.map((t) => t.id + 1));
    const idOf = (token: string | null, key: string): number | null => {
      if (token === null) return null;
      const id = this.#impl.token_to_id(token);
      if (id === undefined) throw new AppError(ErrorCode.BadRequest, `tokenizer config: ${key} ${JSON.stringify(token)} is not a token of tokenizer.json`);
      return id;
    };
    config.eosTokenIds.forEach((id, i) => {
      if (id >= this.vocabSize)
        throw new AppError(ErrorCode.BadRequest, `tokenizer config: eos_token_id[${i}] ${id} is outside the vocabulary (size ${this.vocabSize})`);
    });
    const eos = idOf(config.eosToken, 'eos_token') ?? config.eosTokenIds[0];
    if (eos === undefined) {
      throw new AppError(
        ErrorCode.BadRequest,
        'tokenizer config: no EOS token (set eos_token in tokenizer_config.json or eos_token_id in generation_config.json)',
      );
    }
    this.eosId = eos;
    this.eosIds = Object.freeze([...new Set([eos, ...config.eosTokenIds])]);
    this.padId = idOf(config.padToken, 'pad_token') ?? eos;
    this.bosId = idOf(config.bosToken, 'bos_token');
    this.chatTemplate = config.chatTemplate ?? '';
    this.#template = new ChatTemplate(
      this.chatTemplate,
      { bos_token: config.bosToken, eos_token: config.eosToken, pad_token: config.padToken },
      'tokenizer config: chat_template',
    );
  }

  encode(text: string, options: { allowSpecial?: boolean } = {}): number[] {
    if (options.allowSpecial === true) {
      // The library leaves an id undefined for a token it cannot map (no unknown token).
      const { ids } = this.#impl.encode(text, { add_special_tokens: false }) as { ids: Array<number | undefined> };
      return ids.map((id, i) => {
        if (id === undefined) throw new AppError(ErrorCode.BadRequest, `text: cannot encode token ${i} (not in the vocabulary and no unknown token)`);
        return id;
      });
    }
    const out: number[] = [];
    for (const piece of splitOnSpecials(text, this.#plainAdded)) {
      if ('special' in piece) out.push(piece.special);
      else out.push(...this.#encodePlain(piece.text));
    }
    return out;
  }

  decode(ids: readonly number[], options: { keepSpecial?: boolean } = {}): string {
    ids.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize || (this.#impl.id_to_token(id) === undefined && !this.#names.has(id))) {
        throw new AppError(ErrorCode.BadRequest, `ids[${i}]: token id ${id} is outside the vocabulary (size ${this.vocabSize})`);
      }
    });
    if (ids.length === 0) return '';
    return this.#impl.decode([...ids], { skip_special_tokens: options.keepSpecial !== true, clean_up_tokenization_spaces: false });
  }

  renderChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string {
    return this.#template.render(messages, options);
  }

  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): number[] {
    return this.encode(this.renderChatTemplate(messages, options), { allowSpecial: true });
  }

  // Text without specials skips the library's added-token splitter, so text that
  // spells `<|im_end|>` stays text unless the caller allows specials.
  #encodePlain(text: string): number[] {
    const impl = this.#impl;
    const normalized = impl.normalizer === null ? text : impl.normalizer.normalize(text);
    const words = impl.pre_tokenizer === null ? [normalized] : impl.pre_tokenizer.pre_tokenize(normalized);
    const model = impl.model!;
    return model.encode(words).map((t: string) => {
      const id = model.tokens_to_ids.get(t) ?? model.unk_token_id;
      if (id === undefined) throw new AppError(ErrorCode.BadRequest, `text: cannot encode ${JSON.stringify(t)} (not in the vocabulary and no unknown token)`);
      return id;
    });
  }
}
