import type { ChatCodec } from '../backend.ts';
import type { Tokenizer } from '../policy-types.ts';

/** A {@link ChatCodec} over an in-process tokenizer and its own chat template (embedded and scripted backends). */
export function tokenizerCodec(tokenizer: Tokenizer): ChatCodec {
  return {
    encodeChat: async (messages, { tools, templateArgs, addGenerationPrompt }) =>
      tokenizer.applyChatTemplate(messages, {
        addGenerationPrompt,
        ...(tools !== undefined ? { tools } : {}),
        ...(templateArgs !== undefined ? { templateArgs } : {}),
      }),
    encode: async (text) => tokenizer.encode(text),
    decode: async (ids, options) => tokenizer.decode(ids, { keepSpecial: options?.keepSpecial ?? false }),
  };
}
