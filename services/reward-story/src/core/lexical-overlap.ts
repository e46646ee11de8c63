/**
 * Word n-gram containment, the embedder-independent half of the copy checks:
 * a verbatim copy scores 1 even under an embedder that cannot tell texts apart.
 */

// Chinese and Japanese are written without spaces, so each ideograph or kana is
// its own token; every other run of letters, marks and digits is a word.
const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}`;
const TOKEN = new RegExp(String.raw`[${CJK}]|[[\p{L}\p{M}\p{N}]--[${CJK}]]+`, 'gv');

/** Lower-cased word tokens (CJK characters one by one); punctuation and spacing ignored. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** Default n-gram length of {@link containment}. */
export const DEFAULT_NGRAM = 3;

function ngrams(tokens: ReadonlyArray<string>, n: number): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + n <= tokens.length; i++) out.add(tokens.slice(i, i + n).join('\u0000'));
  return out;
}

/**
 * Largest share of the distinct word n-grams of `text` that also occur in one of
 * `sources`, in [0, 1]: 1 when `text` is a (case- and punctuation-insensitive)
 * copy of a source or of a part of one. A text shorter than `n` words uses
 * n-grams of its own length; a text without words, or no sources, scores 0.
 */
export function maxContainment(text: string, sources: ReadonlyArray<string>, n = DEFAULT_NGRAM): number {
  const t = wordTokens(text);
  if (t.length === 0) return 0;
  const k = Math.min(n, t.length);
  const mine = ngrams(t, k);
  let best = 0;
  for (const source of sources) {
    const theirs = ngrams(wordTokens(source), k);
    let shared = 0;
    for (const g of mine) if (theirs.has(g)) shared++;
    best = Math.max(best, shared / mine.size);
  }
  return best;
}
