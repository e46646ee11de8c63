import { SpecialToken } from '../model-build/bert-tokenizer-json.ts';
import { FUNCTION_WORDS } from './function-words.ts';
import { findBaseForm } from './inflection.ts';

/**
 * The default model's WordPiece vocabulary and, per token, the two things the
 * graph looks up: its lexeme (which random vector it gets; inflected forms
 * and `##word` pieces share their word's) and its weight (IDF-like).
 */

/** Token id → token, lexeme and weight. */
export interface DefaultVocabulary {
  tokens: string[];
  lexemes: Int32Array;
  weights: Float32Array;
  /** Number of distinct lexemes (rows the graph's vector table must cover). */
  lexemeCount: number;
}

/** Tuning of {@link buildVocabulary}. */
export interface VocabularyOptions {
  /** Most frequent words that also get a `##word` piece, so OOV compounds split into known words. */
  continuationWords: number;
}

/** Weight of word-piece fallbacks (single characters): an OOV word is informative, its letters barely. */
export const CHAR_WEIGHT = 0.2;
/** Weight of grammatical suffix pieces (`##ed`, `##ing`): a whisper and whispered mean nearly the same. */
export const SUFFIX_WEIGHT = 0.1;
/** Most weight a function word gets. */
export const FUNCTION_WORD_WEIGHT = 0.1;
const MIN_WORD_WEIGHT = 0.05;

// Lexeme 0 is shared by the tokens that carry no content (weight 0).
const NULL_LEXEME = 0;
const SUFFIXES = ['s', 'es', 'ed', 'd', 'ing', 'ly', 'er', 'ers', 'est', 'y', 'ies', 'ied', 'ily', 'ness', 'ment', 'ments', 'ful', 'less', 'able', 'ion', 'ions', 'ism', 'ist', 'ists', 'ity', 'ish', 'en', 'n'];
const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', '‘', '’', '“', '”', '–', '—', '…', '«', '»', '¿', '¡'];
const CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789'];

/**
 * IDF-like weight from a frequency rank (1 = most frequent). Under Zipf's law a
 * word of rank r turns up in a sentence-sized text with probability ∝ 1/r, so
 * its IDF grows as log r; scaled so the rarest listed word weighs 1. Rounded
 * to 3 decimals so the file does not hinge on the last bit of `Math.log`.
 */
export function rankWeight(rank: number, listSize: number): number {
  const w = Math.log(0.6 * rank) / Math.log(0.6 * listSize);
  return Math.round(Math.min(1, Math.max(MIN_WORD_WEIGHT, w)) * 1000) / 1000;
}

/** Builds the vocabulary from words sorted by falling frequency. */
export function buildVocabulary(wordsByFrequency: readonly string[], options: VocabularyOptions): DefaultVocabulary {
  const entries = new Map<string, { lexeme: number; weight: number }>();
  let lexemeCount = 1;
  const add = (token: string, lexeme: number, weight: number) => {
    if (!entries.has(token)) entries.set(token, { lexeme, weight });
  };

  for (const s of Object.values(SpecialToken)) add(s, NULL_LEXEME, 0);
  for (const p of PUNCTUATION) add(p, NULL_LEXEME, 0);
  for (const s of SUFFIXES) add(`##${s}`, lexemeCount++, SUFFIX_WEIGHT);

  const rank = new Map(wordsByFrequency.map((w, i) => [w, i + 1]));
  const rootOf = (word: string): string => {
    let root = word;
    // "happiest" → "happy"; a short chain is enough and guarantees termination.
    for (let hop = 0; hop < 3 && !FUNCTION_WORDS.has(root); hop++) {
      const base = findBaseForm(root, rank);
      if (base === undefined || FUNCTION_WORDS.has(base)) break;
      root = base;
    }
    return root;
  };
  const lexemeOfRoot = new Map<string, number>();
  const wordWeight = (word: string) => {
    const w = rankWeight(rank.get(word)!, wordsByFrequency.length);
    return FUNCTION_WORDS.has(word) ? Math.min(w, FUNCTION_WORD_WEIGHT) : w;
  };
  for (const word of wordsByFrequency) {
    const root = rootOf(word);
    let lexeme = lexemeOfRoot.get(root);
    if (lexeme === undefined) {
      lexeme = lexemeCount++;
      lexemeOfRoot.set(root, lexeme);
    }
    add(word, lexeme, wordWeight(root));
  }

  for (const c of CHARS) add(c, lexemeCount++, CHAR_WEIGHT);
  for (const c of CHARS) add(`##${c}`, lexemeCount++, CHAR_WEIGHT);

  let continuations = 0;
  for (const word of wordsByFrequency) {
    if (continuations === options.continuationWords) break;
    if (word.length < 3 || FUNCTION_WORDS.has(word)) continue;
    const entry = entries.get(word)!;
    add(`##${word}`, entry.lexeme, entry.weight);
    continuations++;
  }

  const tokens = [...entries.keys()];
  const lexemes = Int32Array.from(tokens, (t) => entries.get(t)!.lexeme);
  const weights = Float32Array.from(tokens, (t) => entries.get(t)!.weight);
  return { tokens, lexemes, weights, lexemeCount };
}
