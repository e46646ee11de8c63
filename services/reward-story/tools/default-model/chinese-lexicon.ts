import { CHINESE_FUNCTION_WORDS } from './chinese-function-words.ts';
import { ACKNOWLEDGEMENTS, STOCK_WORDS } from './discourse-words.ts';
import type { CountedWord } from './chinese-words.ts';
import { FUNCTION_WORD_WEIGHT } from './english-lexicon.ts';
import { rankWeight } from './rank-weight.ts';

/**
 * The Chinese side of the default model's vocabulary: the most frequent
 * words of jieba's dictionary plus every character it lists, each scored with
 * its log-probability, so the tokenizer's Unigram model segments a run of
 * Chinese the way jieba does without its HMM (the most probable path through
 * the dictionary's words). Traditional spellings from CC-CEDICT share their
 * simplified word's entry.
 */

/** One Chinese token. */
export interface ChineseToken {
  token: string;
  /** The simplified word it spells (itself unless it is a traditional spelling). */
  word: string;
  weight: number;
  /** Unigram log-probability, ln(count / total count). */
  score: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Builds the Chinese tokens: the `wordCount` most frequent words, then every
 * listed single character not among them (a character the list lacks becomes
 * `[UNK]`), then traditional spellings.
 */
export function buildChineseLexicon(words: readonly CountedWord[], wordCount: number, traditionalOf: (word: string) => readonly string[]): ChineseToken[] {
  const total = words.reduce((s, w) => s + w.count, 0);
  const kept = [...words.slice(0, wordCount), ...words.slice(wordCount).filter((w) => [...w.word].length === 1)];
  const out = new Map<string, ChineseToken>();
  kept.forEach(({ word, count }, i) => {
    const w = rankWeight(i + 1, wordCount);
    const weight = ACKNOWLEDGEMENTS.has(word) ? 0 : CHINESE_FUNCTION_WORDS.has(word) || STOCK_WORDS.has(word) ? Math.min(w, FUNCTION_WORD_WEIGHT) : w;
    out.set(word, { token: word, word, weight, score: round2(Math.log(Math.max(count, 1) / total)) });
  });
  // Acknowledgements jieba's dictionary lacks ("好的") are added as the likeliest
  // tokens, so "好的。" is one weightless token rather than 好 (good) + 的.
  const likeliest = Math.max(...[...out.values()].map((t) => t.score));
  for (const ack of ACKNOWLEDGEMENTS) if (/^\p{Script=Han}+$/u.test(ack) && !out.has(ack)) out.set(ack, { token: ack, word: ack, weight: 0, score: likeliest });
  for (const entry of [...out.values()]) {
    for (const trad of traditionalOf(entry.word)) if (!out.has(trad)) out.set(trad, { ...entry, token: trad });
  }
  return [...out.values()];
}
