import { buildBertPipelineJson, SpecialToken } from './bert-tokenizer-json.ts';

/**
 * Writes a `tokenizer.json` in the HF tokenizers format for a Unigram model
 * behind BERT's normaliser and pre-tokeniser: clean, lowercase, strip accents,
 * split on whitespace and punctuation, then, within each piece, the most
 * probable segmentation into vocabulary tokens (Viterbi over their log
 * probabilities), with `[CLS] … [SEP]` around the sequence. Chinese is *not*
 * split into single characters first (`handle_chinese_chars: false`), so a run
 * of Chinese is segmented into dictionary words the way jieba does it.
 */

/** Builds the JSON object; `vocab[i]` gets id `i` and log-probability `scores[i]`. */
export function buildUnigramTokenizerJson(vocab: readonly string[], scores: readonly number[], maxLength: number): Record<string, unknown> {
  if (scores.length !== vocab.length) throw new Error(`${scores.length} scores for ${vocab.length} tokens`);
  return buildBertPipelineJson(vocab, maxLength, {
    handleChineseChars: false,
    decoder: null,
    model: (idOf) => ({ type: 'Unigram', unk_id: idOf(SpecialToken.Unk), byte_fallback: false, vocab: vocab.map((token, id) => [token, scores[id]]) }),
  });
}
