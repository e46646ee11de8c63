import { SpecialToken } from './bert-tokenizer-json.ts';

/**
 * Writes a `tokenizer.json` in the HF tokenizers format for a Unigram model
 * behind BERT's normaliser and pre-tokeniser: clean, lowercase, strip accents,
 * split on whitespace and punctuation, then, within each piece, the most
 * probable segmentation into vocabulary tokens (Viterbi over their log
 * probabilities), with `[CLS] … [SEP]` around the sequence. Chinese is *not*
 * split into single characters first (`handle_chinese_chars: false`), so a run
 * of Chinese is segmented into dictionary words the way jieba does it.
 */

const REQUIRED_SPECIALS = [SpecialToken.Pad, SpecialToken.Unk, SpecialToken.Cls, SpecialToken.Sep];
const SPECIALS: ReadonlySet<string> = new Set(Object.values(SpecialToken));

/** Builds the JSON object; `vocab[i]` gets id `i` and log-probability `scores[i]`. */
export function buildUnigramTokenizerJson(vocab: readonly string[], scores: readonly number[], maxLength: number): Record<string, unknown> {
  if (scores.length !== vocab.length) throw new Error(`${scores.length} scores for ${vocab.length} tokens`);
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
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special(SpecialToken.Cls, 0), sequence('A', 0), special(SpecialToken.Sep, 0)],
      pair: [special(SpecialToken.Cls, 0), sequence('A', 0), special(SpecialToken.Sep, 0), sequence('B', 1), special(SpecialToken.Sep, 1)],
      special_tokens: Object.fromEntries([SpecialToken.Cls, SpecialToken.Sep].map((t) => [t, { id: t, ids: [idOf(t)], tokens: [t] }])),
    },
    decoder: null,
    model: { type: 'Unigram', unk_id: idOf(SpecialToken.Unk), byte_fallback: false, vocab: vocab.map((token, id) => [token, scores[id]]) },
  };
}
