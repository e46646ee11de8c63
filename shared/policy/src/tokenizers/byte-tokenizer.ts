import { z } from 'zod';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage, ChatTemplateOptions, Tokenizer } from '../types.ts';
import { CHATML_TEMPLATE, ChatTemplate } from './chat-template.ts';
import { specialNames, splitOnSpecials } from './special-tokens.ts';

/** Specials of the byte tokenizer, ids 256.. in this order. `<|im_end|>` ends an assistant turn and is the EOS. */
export const BYTE_SPECIALS = ['<pad>', '<bos>', '<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

/** Serialisable config of a {@link ByteTokenizer} (the layout is fixed). */
export const ByteTokenizerConfig = z.object({ kind: z.literal('byte') }).strict();
export type ByteTokenizerConfig = z.infer<typeof ByteTokenizerConfig>;

const BYTES = 256;

/**
 * Byte-level tokenizer for free text: ids 0..255 are UTF-8 bytes, specials
 * follow, and chat messages use a ChatML template
 * (`<|im_start|>role\ncontent<|im_end|>\n`, {@link CHATML_TEMPLATE}).
 */
export class ByteTokenizer implements Tokenizer {
  readonly kind = 'byte' as const;
  readonly config: ByteTokenizerConfig = { kind: 'byte' };
  readonly vocabSize = BYTES + BYTE_SPECIALS.length;
  readonly padId = BYTES;
  readonly bosId = BYTES + 1;
  readonly eosId = BYTES + 4;
  readonly eosIds: readonly number[] = [BYTES + 4];
  readonly chatTemplate = CHATML_TEMPLATE;
  readonly special: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries(BYTE_SPECIALS.map((n, i) => [n, BYTES + i])));
  readonly #names = specialNames(this.special);
  readonly #encoder = new TextEncoder();
  readonly #template = new ChatTemplate(CHATML_TEMPLATE, { bos_token: '<bos>', eos_token: '<|im_end|>', pad_token: '<pad>' }, 'byte tokenizer');

  encode(text: string, options: { allowSpecial?: boolean } = {}): number[] {
    const pieces = options.allowSpecial === true ? splitOnSpecials(text, this.special) : [{ text }];
    const out: number[] = [];
    for (const piece of pieces) {
      if ('special' in piece) out.push(piece.special);
      else for (const b of this.#encoder.encode(piece.text)) out.push(b);
    }
    return out;
  }

  decode(ids: readonly number[], options: { keepSpecial?: boolean } = {}): string {
    // A fresh non-fatal decoder per run of bytes: invalid UTF-8 becomes U+FFFD, and a
    // special token in the middle ends the run (a split multi-byte character is invalid).
    let out = '';
    let run: number[] = [];
    const flush = () => {
      if (run.length > 0) out += new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(run));
      run = [];
    };
    ids.forEach((id, i) => {
      if (Number.isInteger(id) && id >= 0 && id < BYTES) {
        run.push(id);
        return;
      }
      const name = this.#names.get(id);
      if (name === undefined) {
        throw new AppError(ErrorCode.BadRequest, `ids[${i}]: token id ${id} is outside the vocabulary (size ${this.vocabSize})`);
      }
      flush();
      if (options.keepSpecial === true) out += name;
    });
    flush();
    return out;
  }

  renderChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): string {
    return this.#template.render(messages, options);
  }

  applyChatTemplate(messages: readonly ChatMessage[], options?: ChatTemplateOptions): number[] {
    return this.encode(this.renderChatTemplate(messages, options), { allowSpecial: true });
  }
}
