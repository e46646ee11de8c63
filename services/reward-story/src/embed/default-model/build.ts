import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBertTokenizerJson } from '../model-build/bert-tokenizer-json.ts';
import { encodeOnnxModel } from '../model-build/onnx-model.ts';
import { buildDefaultGraph } from './graph.ts';
import { buildVocabulary } from './vocabulary.ts';
import { loadWordsByFrequency, WORD_LIST_SOURCE } from './word-list.ts';

/**
 * Builds the project's default embedding model (`models/default`): no weights
 * can be downloaded, so it is generated, deterministically, from a word list
 * and a seed. Same inputs, same bytes: the committed files are checked
 * against a fresh build by a test.
 */

/** Everything the build depends on besides the word list. Changing any value changes the model. */
export const DEFAULT_MODEL_PARAMS = {
  /** Whole-word tokens, most frequent first. */
  words: 40_000,
  /** Words that also get a `##word` piece. */
  continuationWords: 10_000,
  /** As all-MiniLM-L6-v2; unrelated words' cosine noise is ~1/√dim ≈ 0.05. */
  dim: 384,
  tableRows: 256,
  bigramWeight: 0.5,
  seed: 20_240_611,
  /** As all-MiniLM-L6-v2, so switching models keeps the same truncation. */
  maxSeqLength: 256,
} as const;

/** The generated files: name → bytes. */
export type ModelFiles = Record<'model.onnx' | 'tokenizer.json' | 'sentence_bert_config.json', Uint8Array>;

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Builds the default model's files in memory. */
export async function buildDefaultModelFiles(): Promise<ModelFiles> {
  const p = DEFAULT_MODEL_PARAMS;
  const words = await loadWordsByFrequency(p.words);
  if (words.length !== p.words) throw new Error(`word list has only ${words.length} usable words, need ${p.words}`);
  const vocab = buildVocabulary(words, { continuationWords: p.continuationWords });
  const graph = buildDefaultGraph(vocab, { dim: p.dim, tableRows: p.tableRows, bigramWeight: p.bigramWeight, seed: p.seed }, [
    ['model', 'rl-reward-services default story embedder'],
    ['vocabulary_source', WORD_LIST_SOURCE],
    ['params', JSON.stringify(p)],
  ]);
  return {
    'model.onnx': encodeOnnxModel(graph),
    'tokenizer.json': utf8(`${JSON.stringify(buildBertTokenizerJson(vocab.tokens, p.maxSeqLength))}\n`),
    'sentence_bert_config.json': utf8(`${JSON.stringify({ max_seq_length: p.maxSeqLength, do_lower_case: false }, null, 2)}\n`),
  };
}

/** Builds and writes the files into `dir` (created if missing); returns their names. */
export async function writeDefaultModel(dir: string): Promise<string[]> {
  const files = await buildDefaultModelFiles();
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  return Object.keys(files);
}
