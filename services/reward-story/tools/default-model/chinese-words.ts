import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * Chinese words with frequencies from jieba's dictionary, as shipped by the
 * `@node-rs/jieba` package (pinned at 2.0.3, MIT). A build-time input only:
 * the frequencies become the tokenizer's Unigram scores (so segmentation
 * follows jieba's most-probable-path rule) and the words' IDF-like weights.
 */

/** Package and file the words come from, written into the model's metadata. */
export const CHINESE_WORDS_SOURCE = '@node-rs/jieba@2.0.3 dict.txt (jieba dictionary, MIT)';

/** A word and its count in jieba's corpus. */
export interface CountedWord {
  word: string;
  count: number;
}

const HAN = /^\p{Script=Han}+$/u;

/** Parses `word count tag` lines; keeps words written in Han characters only, most frequent first (ties by code point). */
export function parseJiebaDict(text: string): CountedWord[] {
  const seen = new Set<string>();
  const out: CountedWord[] = [];
  for (const line of text.split('\n')) {
    const [word, count] = line.trim().split(/\s+/);
    if (word === undefined || count === undefined || !HAN.test(word) || seen.has(word)) continue;
    seen.add(word);
    out.push({ word, count: Number(count) });
  }
  return out.sort((a, b) => b.count - a.count || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}

/** Reads jieba's dictionary from the installed package. */
export async function loadChineseWords(): Promise<CountedWord[]> {
  const path = fileURLToPath(import.meta.resolve('@node-rs/jieba/dict.txt'));
  return parseJiebaDict(await readFile(path, 'utf8'));
}
