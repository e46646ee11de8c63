import { withToolsPrompt } from '../agent/tool-prompt.ts';
import type { ChatCodec } from '../backend.ts';
import type { Tokenizer } from '../policy-types.ts';

/** A {@link ChatCodec} over an in-process tokenizer (embedded and scripted backends). */
export function tokenizerCodec(tokenizer: Tokenizer): ChatCodec {
  return {
    encodeChat: async (messages, { tools, addGenerationPrompt }) => tokenizer.applyChatTemplate(withToolsPrompt(messages, tools), { addGenerationPrompt }),
    encode: async (text) => tokenizer.encode(text),
    decode: async (ids, options) => tokenizer.decode(ids, { keepSpecial: options?.keepSpecial ?? false }),
  };
}
