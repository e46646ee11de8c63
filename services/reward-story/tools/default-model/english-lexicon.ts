import { ACKNOWLEDGEMENTS, STOCK_WORDS } from './discourse-words.ts';
import { FUNCTION_WORDS } from './function-words.ts';
import { findBaseForm } from './inflection.ts';
import { rankWeight } from './rank-weight.ts';

/**
 * The English side of the default model's vocabulary: each listed word with
 * its root (regular inflections fold onto their base word: swords → sword,
 * walked → walk), its IDF-like weight and its Unigram score, plus the suffix
 * and letter pieces an unlisted word falls back to.
 */

/** One English token. */
export interface EnglishToken {
  token: string;
  /** The word whose meaning it carries: itself, its base form, or a piece's own name. */
  root: string;
  weight: number;
  /** Unigram log-probability: the tokenizer prefers the segmentation with the highest sum. */
  score: number;
  kind: 'word' | 'suffix' | 'char';
}

/** Weight of letter and digit fallbacks: an unknown word is informative, its letters barely. */
export const CHAR_WEIGHT = 0.2;
/** Weight of grammatical suffix pieces (`ed`, `ing`): a whisper and whispered mean nearly the same. */
export const SUFFIX_WEIGHT = 0.1;
/** Most weight a function word gets. */
export const FUNCTION_WORD_WEIGHT = 0.1;

// Unigram scores. A listed word of rank r scores ln(0.1 / r) (Zipf); a suffix is
// as unlikely as a rare word, so "whispered" → whisper + ed beats whispe + red;
// letters only when nothing else covers the text.
const SUFFIX_SCORE = -12;
const CHAR_SCORE = -30;

const SUFFIXES = [
  's',
  'es',
  'ed',
  'd',
  'ing',
  'ly',
  'er',
  'ers',
  'est',
  'y',
  'ies',
  'ied',
  'ily',
  'ness',
  'ment',
  'ments',
  'ful',
  'less',
  'able',
  'ion',
  'ions',
  'ism',
  'ist',
  'ists',
  'ity',
  'ish',
  'en',
  'n',
];
const CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789'];

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Builds the English tokens from words sorted by falling frequency; suffixes win over equal listed words ("ed", "less"). */
export function buildEnglishLexicon(wordsByFrequency: readonly string[]): EnglishToken[] {
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
  const weightOf = (root: string) => {
    const w = rankWeight(rank.get(root)!, wordsByFrequency.length);
    if (ACKNOWLEDGEMENTS.has(root)) return 0;
    return FUNCTION_WORDS.has(root) || STOCK_WORDS.has(root) ? Math.min(w, FUNCTION_WORD_WEIGHT) : w;
  };

  const out = new Map<string, EnglishToken>();
  for (const s of SUFFIXES) if (s.length > 1) out.set(s, { token: s, root: `-${s}`, weight: SUFFIX_WEIGHT, score: SUFFIX_SCORE, kind: 'suffix' });
  for (const word of wordsByFrequency) {
    if (out.has(word)) continue;
    const root = rootOf(word);
    out.set(word, { token: word, root, weight: weightOf(root), score: round2(Math.log(0.1 / rank.get(word)!)), kind: 'word' });
  }
  for (const s of SUFFIXES) if (!out.has(s)) out.set(s, { token: s, root: `-${s}`, weight: SUFFIX_WEIGHT, score: SUFFIX_SCORE, kind: 'suffix' });
  for (const c of CHARS) if (!out.has(c)) out.set(c, { token: c, root: `#${c}`, weight: CHAR_WEIGHT, score: CHAR_SCORE, kind: 'char' });
  return [...out.values()];
}
