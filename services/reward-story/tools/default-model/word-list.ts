import { z } from 'zod';

/**
 * English words by frequency, from the `popular-english-words` package
 * (pinned at 1.0.2, ISC; counted over Wikipedia). A build-time input only:
 * its order decides which words get a whole-word token and how heavily each
 * is weighted. Wikipedia skews it: "page", "delete" and month names rank far
 * higher than in stories, "whispered" far lower.
 */

/** Package and version the vocabulary comes from, written into the model's metadata. */
export const WORD_LIST_SOURCE = 'popular-english-words@1.0.2';

const WordsModule = z.object({
  words: z.object({ getMostPopular: z.custom<(count: number) => unknown>((v) => typeof v === 'function') }),
});

/** The `count` most frequent lowercase ASCII words, most frequent first. */
export async function loadWordsByFrequency(count: number): Promise<string[]> {
  // Resolved at run time: the package ships no type declarations.
  const mod: unknown = await import(import.meta.resolve('popular-english-words'));
  const all: unknown = WordsModule.parse(mod).words.getMostPopular(Number.MAX_SAFE_INTEGER);
  const list = z.array(z.string()).parse(all);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const word of list) {
    if (out.length === count) break;
    if (!/^[a-z]+$/.test(word) || word.length > 24 || seen.has(word)) continue;
    seen.add(word);
    out.push(word);
  }
  return out;
}
