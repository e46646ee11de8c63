import type { ChatMessage, Tokenizer } from '../policy-types.ts';

const SPECIALS = ['<pad>', '<bos>', '<eos>', '<|im_start|>', '<|im_end|>'] as const;
const SPECIAL_IDS: Readonly<Record<string, number>> = Object.fromEntries(SPECIALS.map((s, i) => [s, 256 + i]));
const SPECIAL_SPLIT = new RegExp(`(${SPECIALS.map((s) => s.replace(/[|<>]/g, (c) => `\\${c}`)).join('|')})`);
const encoder = new TextEncoder();

/**
 * A byte-level tokenizer with a ChatML template (`<|im_start|>role\ncontent<|im_end|>\n`),
 * for the scripted backend: ids 0-255 are UTF-8 bytes, 256+ the specials, and
 * `<|im_end|>` ends an assistant turn. No default system prompt.
 */
export function createChatMlByteTokenizer(): Tokenizer {
  const imStart = SPECIAL_IDS['<|im_start|>'] as number;
  const imEnd = SPECIAL_IDS['<|im_end|>'] as number;
  const bytes = (text: string) => Array.from(encoder.encode(text));
  const encode = (text: string, options?: { allowSpecial?: boolean }) => {
    if (options?.allowSpecial !== true) return bytes(text);
    return text.split(SPECIAL_SPLIT).flatMap((part) => (part in SPECIAL_IDS ? [SPECIAL_IDS[part] as number] : bytes(part)));
  };
  const decode = (ids: readonly number[], options?: { keepSpecial?: boolean }) => {
    let out = '';
    let run: number[] = [];
    const flush = () => {
      out += new TextDecoder('utf-8').decode(Uint8Array.from(run));
      run = [];
    };
    for (const id of ids) {
      if (id >= 0 && id < 256) run.push(id);
      else {
        flush();
        if (options?.keepSpecial === true) out += SPECIALS[id - 256] ?? '';
      }
    }
    flush();
    return out;
  };
  const applyChatTemplate = (messages: readonly ChatMessage[], options?: { addGenerationPrompt?: boolean }) => {
    const ids: number[] = [];
    for (const m of messages) ids.push(imStart, ...bytes(`${m.role}\n${m.content}`), imEnd, ...bytes('\n'));
    if (options?.addGenerationPrompt === true) ids.push(imStart, ...bytes('assistant\n'));
    return ids;
  };
  return {
    kind: 'byte',
    vocabSize: 256 + SPECIALS.length,
    padId: SPECIAL_IDS['<pad>'] as number,
    bosId: SPECIAL_IDS['<bos>'] as number,
    eosId: imEnd,
    special: SPECIAL_IDS,
    encode,
    decode,
    applyChatTemplate,
  };
}
