import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { z } from 'zod';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { renderChatMl } from './chat-template.ts';
import { specialNames, splitOnSpecials } from './special-tokens.ts';
import type { ChatMessage, Tokenizer } from '../types.ts';

/** Serialisable config of an {@link HfTokenizer}: a Hugging Face tokenizer.json, inline. */
export const HfTokenizerConfig = z
  .object({
    kind: z.literal('hf'),
    /** The tokenizer.json object (e.g. what `trainBpe` returns, or a Qwen tokenizer.json). */
    tokenizer: z
      .object({
        model: z.object({ type: z.string() }).loose(),
        added_tokens: z.array(z.object({ id: z.number().int().min(0), content: z.string(), special: z.boolean().optional() }).loose()).optional(),
      })
      .loose(),
  })
  .strict();
export type HfTokenizerConfig = z.infer<typeof HfTokenizerConfig>;

/**
 * A tokenizer.json tokenizer (encoding and decoding by `@huggingface/tokenizers`)
 * with this project's ChatML template. Its special tokens must include
 * `<|im_start|>` and `<|im_end|>` (the EOS); the pad is `<pad>` or `<|endoftext|>`.
 */
export class HfTokenizer implements Tokenizer {
  readonly kind = 'hf' as const;
  readonly config: HfTokenizerConfig;
  readonly vocabSize: number;
  readonly padId: number;
  readonly bosId: number;
  readonly eosId: number;
  readonly special: Readonly<Record<string, number>>;
  readonly #impl: HfTokenizerImpl;
  readonly #names: Map<number, string>;

  constructor(config: HfTokenizerConfig) {
    this.config = config;
    try {
      this.#impl = new HfTokenizerImpl(config.tokenizer, {});
    } catch (err) {
      throw new AppError(ErrorCode.BadRequest, `tokenizer config: not a usable tokenizer.json (${(err as Error).message})`, { cause: err });
    }
    const added = config.tokenizer.added_tokens ?? [];
    this.special = Object.freeze(Object.fromEntries(added.filter((t) => t.special === true).map((t) => [t.content, t.id])));
    this.#names = specialNames(this.special);
    const need = (name: string) => {
      const id = this.special[name];
      if (id === undefined) throw new AppError(ErrorCode.BadRequest, `tokenizer config: special token ${name} is missing (the ChatML template needs it)`);
      return id;
    };
    need('<|im_start|>');
    this.eosId = need('<|im_end|>');
    this.padId = this.special['<pad>'] ?? need('<|endoftext|>');
    this.bosId = this.special['<bos>'] ?? this.padId;
    const model = this.#impl.model;
    if (model === null) throw new AppError(ErrorCode.BadRequest, 'tokenizer config: tokenizer.json has no model');
    this.vocabSize = Math.max(model.vocab.length, ...added.map((t) => t.id + 1));
  }

  encode(text: string, options: { allowSpecial?: boolean } = {}): number[] {
    const pieces = options.allowSpecial === true ? splitOnSpecials(text, this.special) : [{ text }];
    const out: number[] = [];
    for (const piece of pieces) {
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

  applyChatTemplate(messages: readonly ChatMessage[], options: { addGenerationPrompt?: boolean } = {}): number[] {
    return renderChatMl(this, messages, options.addGenerationPrompt ?? false);
  }

  // Plain text never goes through the library's added-token splitter, so message
  // content that spells `<|im_end|>` stays text and cannot inject a turn marker.
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
