import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeOnnxModel } from '../model-build/onnx-model.ts';
import { buildUnigramTokenizerJson } from '../model-build/unigram-tokenizer-json.ts';
import { CEDICT_SOURCE, loadCedict } from './cedict.ts';
import { CHINESE_WORDS_SOURCE, loadChineseWords } from './chinese-words.ts';
import { buildDefaultGraph } from './graph.ts';
import { buildVocabulary } from './vocabulary.ts';
import { loadWordsByFrequency, WORD_LIST_SOURCE } from './word-list.ts';
import { loadSynsets, loadWordSenses, WORDNET_SOURCE } from './wordnet.ts';

/**
 * Builds the project's default embedding model (`models/default`): no weights
 * can be downloaded, so it is generated, deterministically, from word lists,
 * dictionaries and a seed. Same inputs, same bytes: the committed files are
 * checked against a fresh build by a test.
 */

/** Everything the build depends on besides the pinned data packages. Changing any value changes the model. */
export const DEFAULT_MODEL_PARAMS = {
  /** English whole-word tokens, most frequent first. */
  englishWords: 40_000,
  /** Chinese words besides single characters, most frequent first. */
  chineseWords: 100_000,
  /** Concepts per token. */
  slots: 8,
  sensesPerWord: 3,
  senseWeight: 0.6,
  synonymWeight: 0.5,
  hypernymWeight: 0.3,
  definitionWeight: 0.3,
  glossesPerWord: 4,
  glossWeight: 0.8,
  charWeight: 0.5,
  /** As all-MiniLM-L6-v2; unrelated words' cosine noise is ~1/√dim ≈ 0.05. */
  dim: 384,
  tableRows: 512,
  bigramWeight: 0.5,
  seed: 20_240_611,
  /** As all-MiniLM-L6-v2, so switching models keeps the same truncation. */
  maxSeqLength: 256,
} as const;

/** The generated files: name → bytes. */
export type ModelFiles = Record<'model.onnx' | 'tokenizer.json' | 'sentence_bert_config.json', Uint8Array>;

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Parameters of {@link buildModelFiles}. */
export type ModelParams = { readonly [K in keyof typeof DEFAULT_MODEL_PARAMS]: number };

/** Builds a model of the default model's design with other parameters (for measuring variants). */
export async function buildModelFiles(p: ModelParams): Promise<ModelFiles> {
  const [englishWords, chineseWords, cedict, senses, synsets] = await Promise.all([
    loadWordsByFrequency(p.englishWords),
    loadChineseWords(),
    loadCedict(),
    loadWordSenses(),
    loadSynsets(),
  ]);
  if (englishWords.length !== p.englishWords) throw new Error(`word list has only ${englishWords.length} usable words, need ${p.englishWords}`);
  const vocab = buildVocabulary({ englishWords, chineseWords, cedict, senses, synsets }, p);
  const graph = buildDefaultGraph(vocab, { dim: p.dim, tableRows: p.tableRows, bigramWeight: p.bigramWeight, seed: p.seed }, [
    ['model', 'rl-reward-services default story embedder (Chinese and English)'],
    ['sources', [WORD_LIST_SOURCE, CHINESE_WORDS_SOURCE, CEDICT_SOURCE, WORDNET_SOURCE].join('; ')],
    ['params', JSON.stringify(p)],
  ]);
  return {
    'model.onnx': encodeOnnxModel(graph),
    'tokenizer.json': utf8(`${JSON.stringify(buildUnigramTokenizerJson(vocab.tokens, vocab.scores, p.maxSeqLength))}\n`),
    'sentence_bert_config.json': utf8(`${JSON.stringify({ max_seq_length: p.maxSeqLength, do_lower_case: false }, null, 2)}\n`),
  };
}

/** Builds and writes the files into `dir` (created if missing); returns their names. */
export async function writeDefaultModel(dir: string, params: ModelParams = DEFAULT_MODEL_PARAMS): Promise<string[]> {
  const files = await buildModelFiles(params);
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  return Object.keys(files);
}
