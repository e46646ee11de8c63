// The tokenizer.json (Hugging Face `tokenizers` format) of a byte-level BPE
// with GPT-2's pre-tokenizer (numbers stay whole, so frequent ones become one
// token) or Qwen2's (digits split one by one). Ids: 0..255 are the bytes (in byte order), the specials
// follow, then one id per new merged string, so a BPE without merges is the byte
// tokenizer.
import { BYTE_TO_CHAR } from './byte-level.ts';

/** Qwen2's split pattern (tokenizer.json `pre_tokenizer.pretokenizers[0].pattern.Regex`). */
export const QWEN2_SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/**
 * GPT-2's split with numbers kept whole but never glued to the space before
 * them, so a number is the same token at the start of a line and after a
 * space (small models then copy numbers without learning two spellings).
 */
export const WHOLE_NUMBERS_SPLIT_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/** How text is split into words before merging. */
export const PreTokenizerStyle = { Gpt2: 'gpt2', Qwen2: 'qwen2', WholeNumbers: 'whole-numbers' } as const;
/** One of {@link PreTokenizerStyle}. */
export type PreTokenizerStyle = (typeof PreTokenizerStyle)[keyof typeof PreTokenizerStyle];

/** A tokenizer.json object (only the parts this project writes are typed). */
export type TokenizerJson = {
  version: string;
  added_tokens: Array<{ id: number; content: string; single_word: boolean; lstrip: boolean; rstrip: boolean; normalized: boolean; special: boolean }>;
  normalizer: null;
  pre_tokenizer: unknown;
  post_processor: null;
  decoder: unknown;
  model: { type: 'BPE'; vocab: Record<string, number>; merges: Array<[string, string]>; [key: string]: unknown };
};

const byteLevel = (useRegex: boolean) => ({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: useRegex });

function splitThenBytes(pattern: string) {
  return { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false }, byteLevel(false)] };
}

// GPT-2's split is the ByteLevel pre-tokenizer's own regex; the others split first, then map bytes.
const PRE_TOKENIZERS = {
  gpt2: byteLevel(true),
  qwen2: splitThenBytes(QWEN2_SPLIT_PATTERN),
  'whole-numbers': splitThenBytes(WHOLE_NUMBERS_SPLIT_PATTERN),
} satisfies Record<PreTokenizerStyle, unknown>;

/** An added token entry marked special, as tokenizers writes one. */
export function specialToken(id: number, content: string): TokenizerJson['added_tokens'][number] {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** The `model` of a BPE tokenizer.json: `vocab` and `merges`, unknown text as `unkToken` (null: none). */
export function bpeModel(vocab: Record<string, number>, merges: ReadonlyArray<readonly [string, string]>, unkToken: string | null): TokenizerJson['model'] {
  return {
    type: 'BPE',
    dropout: null,
    unk_token: unkToken,
    continuing_subword_prefix: null,
    end_of_word_suffix: null,
    fuse_unk: false,
    byte_fallback: false,
    ignore_merges: false,
    vocab,
    merges: merges.map(([a, b]) => [a, b]),
  };
}

/** Builds the tokenizer.json of a byte-level BPE with these specials and merges (each merge joins two existing tokens). */
export function byteLevelBpeJson(
  specials: readonly string[],
  merges: ReadonlyArray<readonly [string, string]>,
  style: PreTokenizerStyle = 'qwen2',
): TokenizerJson {
  const vocab: Record<string, number> = {};
  BYTE_TO_CHAR.forEach((c, b) => (vocab[c] = b));
  // A merge whose result already exists (reached by another path) keeps that id.
  let next = 256 + specials.length;
  for (const [a, b] of merges) vocab[a + b] ??= next++;
  return {
    version: '1.0',
    added_tokens: specials.map((content, i) => specialToken(256 + i, content)),
    normalizer: null,
    pre_tokenizer: PRE_TOKENIZERS[style],
    post_processor: null,
    decoder: byteLevel(false),
    model: bpeModel(vocab, merges, null),
  };
}
