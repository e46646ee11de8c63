import { z } from 'zod';
import { validationError } from '@rl/service-kit/core';
import type { TokenizerJson } from './bpe/tokenizer-json.ts';
import { BYTE_SPECIALS, ByteTokenizer, ByteTokenizerConfig } from './byte-tokenizer.ts';
import { CHATML_TEMPLATE } from './chat-template.ts';
import { ARITHMETIC_CHARACTERS, CharTokenizer, CharTokenizerConfig } from './char-tokenizer.ts';
import { HfTokenizer, HfTokenizerConfig } from './hf-tokenizer.ts';

/** JSON config that rebuilds a tokenizer; stored in the weights' metadata. */
export const TokenizerConfig = z.discriminatedUnion('kind', [CharTokenizerConfig, ByteTokenizerConfig, HfTokenizerConfig]);
export type TokenizerConfig = z.infer<typeof TokenizerConfig>;

/** A tokenizer that can also describe itself as JSON. */
export type PolicyTokenizer = CharTokenizer | ByteTokenizer | HfTokenizer;

const BUILD = {
  char: (c) => new CharTokenizer(c as CharTokenizerConfig),
  byte: () => new ByteTokenizer(),
  hf: (c) => new HfTokenizer(c as HfTokenizerConfig),
} satisfies Record<TokenizerConfig['kind'], (c: TokenizerConfig) => PolicyTokenizer>;

/** Builds a tokenizer from its (untrusted) JSON config; a bad config is a 400 naming the field. */
export function createTokenizer(config: unknown): PolicyTokenizer {
  const parsed = TokenizerConfig.safeParse(config);
  if (!parsed.success) throw validationError(parsed.error, 'tokenizer config');
  return BUILD[parsed.data.kind](parsed.data);
}

/** The char tokenizer of verl's arithmetic-sequence (digit completion) task: 4 specials + `0-9 , :` = 16 ids. */
export function arithmeticTokenizer(): CharTokenizer {
  return new CharTokenizer({ kind: 'char', characters: [...ARITHMETIC_CHARACTERS] });
}

/**
 * A byte-level BPE trained with {@link BYTE_SPECIALS} (`trainBpe`) as a chat
 * tokenizer: ChatML template, `<|im_end|>` EOS, `<pad>` pad, `<bos>` BOS.
 */
export function chatMlBpeTokenizer(tokenizerJson: TokenizerJson): HfTokenizer {
  return new HfTokenizer({ kind: 'hf', tokenizer: tokenizerJson, chatTemplate: CHATML_TEMPLATE, bosToken: '<bos>', eosToken: '<|im_end|>', padToken: '<pad>' });
}
