import { SpecialToken } from '../model-build/bert-tokenizer-json.ts';
import type { CedictEntry } from './cedict.ts';
import { CHINESE_FUNCTION_WORDS } from './chinese-function-words.ts';
import { buildChineseLexicon } from './chinese-lexicon.ts';
import type { CountedWord } from './chinese-words.ts';
import { addMix, ConceptIds, packMix, type ConceptMix } from './concept-mix.ts';
import { buildEnglishLexicon, type EnglishToken } from './english-lexicon.ts';
import { glossContentWords } from './gloss-words.ts';
import { FUNCTION_WORDS } from './function-words.ts';
import type { SynsetInfo, WordSense } from './wordnet.ts';

/**
 * The default model's vocabulary: English and Chinese tokens with their
 * Unigram scores, and per token the concepts its vector mixes:
 *
 * - every token: its own lexeme (English inflections share their base word's);
 * - an English word: its most used WordNet synsets, so synonyms overlap
 *   (sword ~ blade, fear ~ dread);
 * - a Chinese word: its characters (宝剑 ~ 剑), and the English words of its
 *   CC-CEDICT glosses with their synsets, so 剑 ~ sword ~ blade and 害怕
 *   (afraid, scared) ~ 恐惧 (frightened, fear) through the synset they reach.
 */

/** Sizes and weights of the concept mixes. */
export interface VocabularyParams {
  /** Most Chinese words besides single characters. */
  chineseWords: number;
  /** Concepts per token (the graph's K). */
  slots: number;
  /** WordNet senses an English word mixes in. */
  sensesPerWord: number;
  /** Total weight of an English word's senses, against 1 for its lexeme. */
  senseWeight: number;
  /** Share of a sense's weight given to the other words of its synset (sword → blade, brand). */
  synonymWeight: number;
  /** Share of a sense's weight given to its hypernyms (dragon → mythical monster). */
  hypernymWeight: number;
  /** Share of a sense's weight given to the content words of its definition (dragon → fire, wings). */
  definitionWeight: number;
  /** Glosses of a Chinese word that are read. */
  glossesPerWord: number;
  /** Total weight of a Chinese word's gloss words, against 1 for its own lexeme. */
  glossWeight: number;
  /** Total weight of a Chinese word's characters, against 1 for its own lexeme. */
  charWeight: number;
}

/** What the build needs besides the parameters. */
export interface VocabularySources {
  englishWords: readonly string[];
  chineseWords: readonly CountedWord[];
  cedict: ReadonlyMap<string, CedictEntry>;
  senses: ReadonlyMap<string, readonly WordSense[]>;
  synsets: ReadonlyMap<string, SynsetInfo>;
}

/** Token id → token, Unigram score and packed concepts (`slots` per token, row-major). */
export interface DefaultVocabulary {
  tokens: string[];
  scores: number[];
  conceptIds: Int32Array;
  conceptWeights: Float32Array;
  conceptCount: number;
  slots: number;
}

const PUNCTUATION = [
  ...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  '‘',
  '’',
  '“',
  '”',
  '–',
  '—',
  '…',
  '«',
  '»',
  '¿',
  '¡',
  ...'，。！？、；：（）《》【】「」『』〈〉·～',
];

/** Builds the vocabulary; the same sources and parameters give the same arrays. */
export function buildVocabulary(src: VocabularySources, p: VocabularyParams): DefaultVocabulary {
  const english = buildEnglishLexicon(src.englishWords);
  const englishByWord = new Map(english.map((t) => [t.token, t]));
  const chinese = buildChineseLexicon(src.chineseWords, p.chineseWords, (w) => src.cedict.get(w)?.traditional ?? []);

  const rootOf = (word: string) => englishByWord.get(word)?.root ?? word;
  const contentWords = (words: readonly string[], except: string) =>
    [...new Set(words.filter((w) => w.length > 2 && !FUNCTION_WORDS.has(w)).map(rootOf))].filter((w) => w !== except);
  const senseMix = (lemma: string): ConceptMix => {
    const senses = (src.senses.get(lemma) ?? []).slice(0, p.sensesPerWord);
    const total = senses.reduce((s, x) => s + x.tagCount + 1, 0);
    const mix: ConceptMix = new Map();
    for (const s of senses) {
      const share = (p.senseWeight * (s.tagCount + 1)) / total;
      mix.set(`wn:${s.synset}`, (mix.get(`wn:${s.synset}`) ?? 0) + share);
      const info = src.synsets.get(s.synset);
      if (info === undefined) continue;
      const spread = (keys: string[], weight: number) => {
        for (const k of keys) mix.set(k, (mix.get(k) ?? 0) + (share * weight) / keys.length);
      };
      spread(
        contentWords(info.lemmas, lemma).map((w) => `en:${w}`),
        p.synonymWeight,
      );
      spread(
        info.hypernyms.map((h) => `wn:${h}`),
        p.hypernymWeight,
      );
      spread(
        contentWords(info.glossWords, lemma)
          .slice(0, 6)
          .map((w) => `en:${w}`),
        p.definitionWeight,
      );
    }
    return mix;
  };
  // Chinese words reach the same English words again and again: build each mix once.
  const englishMixes = new Map<string, ConceptMix>();
  const englishMix = (t: Pick<EnglishToken, 'root' | 'kind'>): ConceptMix => {
    const key = `${t.kind}:${t.root}`;
    let mix = englishMixes.get(key);
    if (mix === undefined) {
      mix = new Map([[`en:${t.root}`, 1]]);
      if (t.kind === 'word') addMix(mix, senseMix(t.root), 1);
      englishMixes.set(key, mix);
    }
    return mix;
  };
  const chineseMix = (word: string): ConceptMix => {
    const mix: ConceptMix = new Map([[`zh:${word}`, 1]]);
    const chars = [...new Set(word)].filter((c) => !CHINESE_FUNCTION_WORDS.has(c));
    if ([...word].length > 1) for (const c of chars) mix.set(`zh:${c}`, (mix.get(`zh:${c}`) ?? 0) + p.charWeight / chars.length);
    const glossWords = (src.cedict.get(word)?.glosses ?? []).slice(0, p.glossesPerWord).flatMap(glossContentWords);
    const linked = [...new Set(glossWords)]
      .map((w) => englishByWord.get(w) ?? (src.senses.has(w) ? { root: w, kind: 'word' as const } : undefined))
      .filter((t) => t !== undefined);
    for (const t of linked) addMix(mix, englishMix(t), p.glossWeight / linked.length);
    return mix;
  };

  const ids = new ConceptIds();
  const rows: Array<{ token: string; score: number; mix: ConceptMix; weight: number }> = [];
  for (const s of Object.values(SpecialToken)) rows.push({ token: s, score: 0, mix: new Map(), weight: 0 });
  for (const c of PUNCTUATION) rows.push({ token: c, score: 0, mix: new Map(), weight: 0 });
  for (const t of english) rows.push({ token: t.token, score: t.score, mix: englishMix(t), weight: t.weight });
  for (const t of chinese) rows.push({ token: t.token, score: t.score, mix: chineseMix(t.word), weight: t.weight });

  const seen = new Set<string>();
  const kept = rows.filter((r) => !seen.has(r.token) && seen.add(r.token));
  const conceptIds = new Int32Array(kept.length * p.slots);
  const conceptWeights = new Float32Array(kept.length * p.slots);
  kept.forEach((r, i) => {
    const packed = packMix(r.mix, p.slots, r.weight, ids);
    conceptIds.set(packed.ids, i * p.slots);
    conceptWeights.set(packed.weights, i * p.slots);
  });
  return { tokens: kept.map((r) => r.token), scores: kept.map((r) => r.score), conceptIds, conceptWeights, conceptCount: ids.count, slots: p.slots };
}
