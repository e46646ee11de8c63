import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit';
import { z } from 'zod';

/**
 * Reads a model directory in the layout of sentence-transformers ONNX exports:
 * `model.onnx` (or `onnx/model.onnx`, as on the Hub) and `tokenizer.json`,
 * plus the optional `tokenizer_config.json` and `sentence_bert_config.json`.
 */

/** What a model directory provides. */
export interface ModelDir {
  /** Directory name, reported as the embedder's `modelId`. */
  modelId: string;
  modelPath: string;
  /** Parsed `tokenizer.json` (HF tokenizers format). */
  tokenizerJson: Record<string, unknown>;
  /** Parsed `tokenizer_config.json`, `{}` when absent. */
  tokenizerConfig: Record<string, unknown>;
  /** Longest input in tokens, special tokens included. */
  maxSeqLength: number;
  /** Where `maxSeqLength` came from. */
  maxSeqLengthSource: 'sentence_bert_config.json' | 'tokenizer.json truncation' | 'default';
}

/** Used when neither config file names a limit; BERT's position table has 512 rows. */
export const DEFAULT_MAX_SEQ_LENGTH = 512;

const MODEL_CANDIDATES = ['model.onnx', join('onnx', 'model.onnx')];

const JsonObject = z.record(z.string(), z.unknown());
const SentenceBertConfig = z.looseObject({ max_seq_length: z.number().int().min(2).optional() });
const TokenizerTruncation = z.looseObject({
  truncation: z.looseObject({ max_length: z.number().int().min(2) }).nullish(),
  model: JsonObject,
});

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

function unusable(modelDir: string, message: string, details: Record<string, unknown> = {}, cause?: unknown): AppError {
  return new AppError(ErrorCode.Unavailable, `embedding model in ${modelDir}: ${message}`, {
    details: { modelDir, ...details },
    cause,
  });
}

async function readJson<T>(modelDir: string, file: string, schema: z.ZodType<T>): Promise<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(modelDir, file), 'utf8'));
  } catch (err) {
    throw unusable(modelDir, `${file} is not readable JSON`, { file }, err);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw unusable(modelDir, `${file} field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`, { file });
  }
  return result.data;
}

/** Checks the directory and reads its configuration; throws `unavailable` naming what is missing. */
export async function readModelDir(dir: string): Promise<ModelDir> {
  const modelDir = resolve(dir);
  const dirStat = await stat(modelDir).catch(() => undefined);
  if (dirStat === undefined || !dirStat.isDirectory()) {
    throw unusable(modelDir, 'directory does not exist (set STORY_MODEL_DIR to a sentence-transformers ONNX export)');
  }
  let modelPath: string | undefined;
  for (const candidate of MODEL_CANDIDATES) {
    if (modelPath === undefined && (await isFile(join(modelDir, candidate)))) modelPath = join(modelDir, candidate);
  }
  const missing = [...(modelPath === undefined ? ['model.onnx'] : []), ...((await isFile(join(modelDir, 'tokenizer.json'))) ? [] : ['tokenizer.json'])];
  if (modelPath === undefined || missing.length > 0) {
    throw unusable(modelDir, `missing ${missing.join(' and ')}`, { missing });
  }

  const tokenizerJson = await readJson(modelDir, 'tokenizer.json', TokenizerTruncation);
  const tokenizerConfig = (await isFile(join(modelDir, 'tokenizer_config.json'))) ? await readJson(modelDir, 'tokenizer_config.json', JsonObject) : {};
  const sbert = (await isFile(join(modelDir, 'sentence_bert_config.json'))) ? await readJson(modelDir, 'sentence_bert_config.json', SentenceBertConfig) : {};

  // sentence-transformers' own limit wins, as SentenceTransformer applies it over
  // whatever truncation the exported tokenizer.json carries (all-MiniLM-L6-v2: 256).
  const fromSbert = sbert.max_seq_length;
  const fromTokenizer = tokenizerJson.truncation?.max_length;
  const [maxSeqLength, maxSeqLengthSource] =
    fromSbert !== undefined
      ? [fromSbert, 'sentence_bert_config.json' as const]
      : fromTokenizer !== undefined
        ? [fromTokenizer, 'tokenizer.json truncation' as const]
        : [DEFAULT_MAX_SEQ_LENGTH, 'default' as const];

  return { modelId: basename(modelDir), modelPath, tokenizerJson, tokenizerConfig, maxSeqLength, maxSeqLengthSource };
}
