import { z } from 'zod';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage, ChatTemplateOptions, Tokenizer } from '../types.ts';
import { CONCAT_TEMPLATE, ChatTemplate } from './chat-template.ts';
import { specialNames, splitOnSpecials } from './special-tokens.ts';

/** Characters of verl's digit-completion (arithmetic sequence) task: `0-9 , :`. */
export const ARITHMETIC_CHARACTERS: readonly string[] = [...'0123456789,:'];

/** Specials of the char tokenizer, ids 0..3; characters follow from id 4 (verl's CharTokenizer also puts 4 specials first). */
export const CHAR_SPECIALS = ['<pad>', '<bos>', '<eos>', '<unk>'] as const;

/** Serialisable config of a {@link CharTokenizer}. */
export const CharTokenizerConfig = z
  .object({
    kind: z.literal('char'),
    /** One code point each, no repeats, no collisions with specials. */
    characters: z
      .array(z.string().refine((c) => [...c].length === 1, 'each character must be exactly one code point'))
      .min(1)
      .max(1 << 16)
      .refine((cs) => new Set(cs).size === cs.length, 'characters must be unique'),
  })
  .strict();
export type CharTokenizerConfig = z.infer<typeof CharTokenizerConfig>;

/**
 * Character-level tokenizer with a fixed alphabet (verl's digit-completion
 * CharTokenizer semantics: one token per character, unknown characters become
 * `<unk>`). No BOS is added: prompts are raw strings, as in verl's task.
 */
export class CharTokenizer implements Tokenizer {
  readonly kind = 'char' as const;
  readonly config: CharTokenizerConfig;
  readonly vocabSize: number;
  readonly padId = 0;
  readonly bosId = 1;
  readonly eosId = 2;
  readonly unkId = 3;
  readonly eosIds: readonly number[] = [2];
  readonly chatTemplate = CONCAT_TEMPLATE;
  readonly special: Readonly<Record<string, number>>;
  readonly #ids: Map<string, number>;
  readonly #chars: readonly string[];
  readonly #names: Map<number, string>;
  readonly #template = new ChatTemplate(CONCAT_TEMPLATE, { bos_token: '<bos>', eos_token: '<eos>', pad_token: '<pad>', unk_token: '<unk>' }, 'char tokenizer');

  constructor(config: CharTokenizerConfig) {
    this.config = { kind: 'char', characters: [...config.characters] };
    this.special = Object.freeze(Object.fromEntries(CHAR_SPECIALS.map((name, id) => [name, id])));
    this.#chars = config.characters;
    this.#ids = new Map(config.characters.map((c, i) => [c, i + CHAR_SPECIALS.length]));
    this.#names = specialNames(this.special);
    this.vocabSize = CHAR_SPECIALS.length + config.characters.length;
  }

  encode(text: string, options: { allowSpecial?: boolean } = {}): number[] {
    const pieces = options.allowSpecial === true ? splitOnSpecials(text, this.special) : [{ text }];
    const out: number[] = [];
    for (const piece of pieces) {
      if ('special' in piece) out.push(piece.special);
      else for (const ch of piece.text) out.push(this.#ids.get(ch) ?? this.unkId);
    }
    return out;
  }

  decode(ids: readonly number[], options: { keepSpecial?: boolean } = {}): string {
    let out = '';
    ids.forEach((id, i) => {
      const name = this.#names.get(id);
      if (name !== undefined) {
        if (options.keepSpecial === true) out += name;
        return;
      }
      const ch = this.#chars[id - CHAR_SPECIALS.length];
      if (ch === undefined || !Number.isInteger(id)) {
        throw new AppError(ErrorCode.BadRequest, `ids[${i}]: token id ${id} is outside the vocabulary (size ${this.vocabSize})`);
      }
      out += ch;
    });
    return out;
  }

  renderChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string {
    return this.#template.render(messages, options);
  }

  /** verl's arithmetic prompts are raw strings: the template is the plain concatenation of contents. */
  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): number[] {
    return this.encode(this.renderChatTemplate(messages, options), { allowSpecial: true });
  }
}
