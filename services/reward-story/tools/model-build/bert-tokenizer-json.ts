/**
 * Writes a `tokenizer.json` in the HF tokenizers format with BERT's pipeline
 * (the one all-MiniLM-L6-v2 ships): BertNormalizer (clean, lowercase, strip
 * accents), BertPreTokenizer (split on whitespace and punctuation), WordPiece
 * over the given vocabulary, and `[CLS] text [SEP]` around every sequence.
 */

/** BERT's special tokens; the vocabulary must contain the first four. */
export const SpecialToken = { Pad: '[PAD]', Unk: '[UNK]', Cls: '[CLS]', Sep: '[SEP]', Mask: '[MASK]' } as const;

const REQUIRED_SPECIALS = [SpecialToken.Pad, SpecialToken.Unk, SpecialToken.Cls, SpecialToken.Sep];
const SPECIALS: ReadonlySet<string> = new Set(Object.values(SpecialToken));

/** What differs between tokenizers behind BERT's normaliser, pre-tokeniser and `[CLS] … [SEP]` template. */
export interface BertPipelineParts {
  /** BertNormalizer's `handle_chinese_chars`: split CJK text into single characters first. */
  handleChineseChars: boolean;
  decoder: Record<string, unknown> | null;
  /** The `model` section, given each token's id. */
  model(idOf: (token: string) => number): Record<string, unknown>;
}

/**
 * The whole tokenizer.json around `parts`; `vocab[i]` gets id `i`. Throws on a
 * duplicate token or a missing required special token.
 */
export function buildBertPipelineJson(vocab: readonly string[], maxLength: number, parts: BertPipelineParts): Record<string, unknown> {
  const ids = new Map<string, number>();
  vocab.forEach((token, id) => {
    if (ids.has(token)) throw new Error(`duplicate vocabulary entry ${JSON.stringify(token)}`);
    ids.set(token, id);
  });
  for (const s of REQUIRED_SPECIALS) if (!ids.has(s)) throw new Error(`vocabulary lacks ${s}`);
  const idOf = (token: string) => ids.get(token)!;

  const special = (token: string, typeId: number) => ({ SpecialToken: { id: token, type_id: typeId } });
  const sequence = (id: 'A' | 'B', typeId: number) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: { direction: 'Right', max_length: maxLength, strategy: 'LongestFirst', stride: 0 },
    padding: null,
    added_tokens: vocab
      .filter((t) => SPECIALS.has(t))
      .map((t) => ({ id: idOf(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: parts.handleChineseChars, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special(SpecialToken.Cls, 0), sequence('A', 0), special(SpecialToken.Sep, 0)],
      pair: [special(SpecialToken.Cls, 0), sequence('A', 0), special(SpecialToken.Sep, 0), sequence('B', 1), special(SpecialToken.Sep, 1)],
      special_tokens: Object.fromEntries([SpecialToken.Cls, SpecialToken.Sep].map((t) => [t, { id: t, ids: [idOf(t)], tokens: [t] }])),
    },
    decoder: parts.decoder,
    model: parts.model(idOf),
  };
}

/** Builds the JSON object; `vocab[i]` gets id `i`. */
export function buildBertTokenizerJson(vocab: readonly string[], maxLength: number): Record<string, unknown> {
  return buildBertPipelineJson(vocab, maxLength, {
    handleChineseChars: true,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: () => ({
      type: 'WordPiece',
      unk_token: SpecialToken.Unk,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
    }),
  });
}
