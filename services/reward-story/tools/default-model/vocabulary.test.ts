import { describe, expect, it } from 'vitest';
import type { CedictEntry } from './cedict.ts';
import { buildVocabulary, type VocabularyParams } from './vocabulary.ts';
import type { SynsetInfo, WordSense } from './wordnet.ts';

const ENGLISH = ['the', 'of', 'and', 'sword', 'knight', 'swords', 'dragon', 'walked', 'walk', 'fire', 'blade', 'fear', 'dread', 'bread', 'okay', 'weapon'];
const CHINESE = [
  { word: '的', count: 1000 },
  { word: '火', count: 60 },
  { word: '剑', count: 50 },
  { word: '龙', count: 40 },
  { word: '宝', count: 30 },
  { word: '宝剑', count: 20 },
  { word: '面包', count: 10 },
  { word: '虎虎', count: 3 },
  { word: '怕', count: 2 },
];
const CEDICT = new Map<string, CedictEntry>([
  ['剑', { traditional: ['劍'], glosses: ['double-edged sword', 'CL:把[ba3]'] }],
  ['宝剑', { traditional: ['寶劍'], glosses: ['(double-edged) sword'] }],
  ['龙', { traditional: ['龍'], glosses: ['dragon', 'imperial'] }],
  ['面包', { traditional: ['麵包'], glosses: ['bread'] }],
]);
const sense = (synset: string, tagCount = 0, senseNumber = 1): WordSense => ({ synset, tagCount, senseNumber });
const SENSES = new Map<string, WordSense[]>([
  ['sword', [sense('n1', 5)]],
  ['blade', [sense('n2', 4), sense('n1', 1, 2)]],
  ['fear', [sense('v9', 20)]],
  ['dread', [sense('v9', 4)]],
]);
const SYNSETS = new Map<string, SynsetInfo>([
  ['n1', { lemmas: ['sword', 'blade'], hypernyms: ['n0'], glossWords: ['a', 'weapon', 'with', 'a', 'long', 'blade'] }],
  ['n2', { lemmas: ['blade'], hypernyms: [], glossWords: ['a', 'leaf'] }],
  ['v9', { lemmas: ['fear', 'dread'], hypernyms: [], glossWords: ['be', 'afraid'] }],
]);
const PARAMS: VocabularyParams = {
  chineseWords: 7,
  slots: 8,
  sensesPerWord: 3,
  senseWeight: 0.6,
  synonymWeight: 0.5,
  hypernymWeight: 0.3,
  definitionWeight: 0.3,
  glossesPerWord: 4,
  glossWeight: 0.8,
  charWeight: 0.5,
};

describe('buildVocabulary', () => {
  const v = buildVocabulary({ englishWords: ENGLISH, chineseWords: CHINESE, cedict: CEDICT, senses: SENSES, synsets: SYNSETS }, PARAMS);
  const row = (token: string) => {
    const i = v.tokens.indexOf(token);
    expect(i, token).toBeGreaterThanOrEqual(0);
    const ids = [...v.conceptIds.subarray(i * v.slots, (i + 1) * v.slots)];
    const weights = [...v.conceptWeights.subarray(i * v.slots, (i + 1) * v.slots)];
    return { i, ids, weights, concepts: new Set(ids.filter((_, k) => weights[k]! > 0)), norm: Math.hypot(...weights) };
  };
  const shared = (a: string, b: string) => [...row(a).concepts].filter((c) => row(b).concepts.has(c)).length;

  it('starts with the special tokens; they and punctuation carry no concept', () => {
    expect(v.tokens.slice(0, 4)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]']);
    for (const t of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ',', '“', '。', '，']) expect(row(t).norm, t).toBe(0);
  });

  it('scores words with their log-probability: English by rank, Chinese by count', () => {
    expect(v.scores[row('sword').i]).toBe(Math.round(Math.log(0.1 / 4) * 100) / 100);
    const total = CHINESE.reduce((s, w) => s + w.count, 0);
    expect(v.scores[row('宝剑').i]).toBe(Math.round(Math.log(20 / total) * 100) / 100);
  });

  it('gives inflected forms their base word’s concepts and weight', () => {
    expect(row('swords').ids).toEqual(row('sword').ids);
    expect(row('swords').weights).toEqual(row('sword').weights);
    expect(row('walked').ids).toEqual(row('walk').ids);
    expect(shared('knight', 'sword')).toBe(0);
  });

  it('links synonyms through WordNet synsets, and nothing else', () => {
    expect(shared('fear', 'dread')).toBeGreaterThan(0);
    expect(shared('sword', 'blade')).toBeGreaterThan(0);
    expect(shared('fear', 'bread')).toBe(0);
  });

  it('links a Chinese word to its CC-CEDICT glosses and its characters; traditional spellings share its row', () => {
    expect(shared('剑', 'sword')).toBeGreaterThan(0);
    expect(shared('面包', 'bread')).toBeGreaterThan(0);
    expect(shared('剑', 'bread')).toBe(0);
    expect(shared('宝剑', '剑')).toBeGreaterThan(0);
    expect(row('劍').ids).toEqual(row('剑').ids);
    expect(row('麵包').weights).toEqual(row('面包').weights);
  });

  it('keeps listed single characters beyond the word limit, and weighs function words low and acknowledgements 0', () => {
    expect(v.tokens).toContain('怕');
    expect(v.tokens).not.toContain('虎虎');
    expect(row('的').norm).toBeLessThanOrEqual(0.1 + 1e-6);
    expect(row('the').norm).toBeLessThanOrEqual(0.1 + 1e-6);
    expect(row('okay').norm).toBe(0);
    expect(row('好的').norm).toBe(0);
  });

  it('scales each token’s concept weights to its IDF-like weight', () => {
    expect(row('weapon').norm).toBeGreaterThan(row('the').norm);
    expect(row('weapon').norm).toBeCloseTo(1, 3); // the rarest listed word weighs 1
  });

  it('has unique tokens and concept ids within the counted range', () => {
    expect(new Set(v.tokens).size).toBe(v.tokens.length);
    expect(Math.max(...v.conceptIds)).toBe(v.conceptCount - 1);
  });
});
