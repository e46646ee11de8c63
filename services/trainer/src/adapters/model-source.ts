// Where a job's model comes from: a Hugging Face model directory (any Llama /
// Qwen2 / Qwen3 directory, or one a job wrote), found from what
// `actor_rollout_ref.model.path`, SFT `model.partial_pretrain` or
// `critic.model.path` name: the directory itself, a checkpoint's model
// directory, a checkpoint step directory or a job directory (its latest
// checkpoint). The tokenizer is the directory's own unless the job's
// `tokenizer` key names one (`char`, `byte`, a tokenizer.json file or a
// directory with tokenizer files).
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit';
import {
  arithmeticTokenizer,
  chatMlBpeTokenizer,
  createTokenizer,
  isModelDir,
  parseHfConfig,
  tokenizerFromDir,
  type ModelConfig,
  type PolicyTokenizer,
  type TokenizerConfig,
  type TokenizerJson,
} from '@rl/policy';
import { HF_DIR, checkpointLayout } from '../policy/checkpoint-layout.ts';
import { latestStep, stepDir } from './checkpoint-store.ts';

const isDir = (p: string) =>
  stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

const badRequest = (field: string, message: string, cause?: unknown) =>
  new AppError(ErrorCode.BadRequest, `${field}: ${message}`, { details: { field }, ...(cause !== undefined && { cause }) });

/**
 * The Hugging Face model directory `path` names: itself, its `huggingface/`
 * (a checkpoint's actor/ or critic/), a step directory's `<role>/huggingface`
 * or a job directory's latest checkpoint's. A critic path falls back to the
 * checkpoint's actor (a causal LM the critic adds a value head to).
 */
export async function resolveModelDir(path: string, field: string, role: 'actor' | 'critic' = 'actor'): Promise<string> {
  const inStep = (step: string) => {
    const l = checkpointLayout(step);
    return role === 'critic' ? [l.critic.hf, l.actor.hf] : [l.actor.hf];
  };
  const tried = [path, join(path, HF_DIR), ...inStep(path)];
  const step = await latestStep(path).catch(() => null);
  if (step !== null) tried.push(...inStep(stepDir(path, step)));
  for (const candidate of tried) if (await isModelDir(candidate)) return candidate;
  throw badRequest(field, `no model directory (config.json) at ${path}; looked in ${tried.join(', ')}`);
}

/** The tokenizer files of a directory (tokenizer.json, tokenizer_config.json with its chat template, generation_config.json). */
async function dirTokenizer(dir: string, field: string): Promise<TokenizerConfig> {
  try {
    return await tokenizerFromDir(dir);
  } catch (err) {
    throw badRequest(field, (err as Error).message, err);
  }
}

/** The model config of a model directory, checked before the job starts (errors name the file and key). */
async function readModelConfig(dir: string, field: string): Promise<ModelConfig> {
  const file = join(dir, 'config.json');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    // Not the parser's message: it quotes the file's first characters.
    throw badRequest(field, `${file} is not a readable JSON file`, err);
  }
  try {
    return parseHfConfig(json, file);
  } catch (err) {
    throw badRequest(field, (err as Error).message, err);
  }
}

/**
 * The tokenizer config of a `tokenizer` key: "char" (the digit task), "byte",
 * a tokenizer.json file `rl-data train-tokenizer` wrote (a byte-level BPE with
 * the byte tokenizer's specials: ChatML template, `<|im_end|>` EOS), or a
 * directory with Hugging Face tokenizer files.
 */
export async function tokenizerFromKey(key: string, baseDir: string, field: string): Promise<TokenizerConfig> {
  if (key === 'char') return arithmeticTokenizer().config;
  if (key === 'byte') return { kind: 'byte' };
  const path = resolve(baseDir, key);
  if (await isDir(path)) return dirTokenizer(path, field);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw badRequest(field, `cannot read tokenizer.json ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, err);
  }
  let json: TokenizerJson;
  try {
    json = JSON.parse(text) as TokenizerJson;
  } catch {
    throw badRequest(field, `${path} is not a JSON file`);
  }
  // A lone tokenizer.json carries no chat template or specials: it is read as `rl-data train-tokenizer` writes it.
  try {
    return chatMlBpeTokenizer(json).config;
  } catch (err) {
    throw badRequest(
      field,
      `${path}: ${(err as Error).message} (a lone tokenizer.json must be one rl-data train-tokenizer wrote; name a directory with tokenizer_config.json for any other)`,
      err,
    );
  }
}

/** A job's resolved model: its model directory (null = random init) with its config, and the tokenizer the job uses. */
export interface ModelSource {
  modelDir: string | null;
  config: ModelConfig | null;
  tokenizer: PolicyTokenizer;
}

/** Resolves the model keys of a job (paths relative to `baseDir`). */
export async function resolveModelSource(opts: {
  path: string | null;
  tokenizer: string | null;
  baseDir: string;
  pathField: string;
  tokenizerField: string;
}): Promise<ModelSource> {
  const fromKey = async (fallback: string) => createTokenizer(await tokenizerFromKey(opts.tokenizer ?? fallback, opts.baseDir, opts.tokenizerField));
  if (opts.path === null) return { modelDir: null, config: null, tokenizer: await fromKey('char') };
  const modelDir = await resolveModelDir(resolve(opts.baseDir, opts.path), opts.pathField);
  const config = await readModelConfig(modelDir, opts.pathField);
  const tokenizer = opts.tokenizer !== null ? await fromKey(opts.tokenizer) : createTokenizer(await dirTokenizer(modelDir, opts.pathField));
  if (tokenizer.vocabSize > config.vocabSize) {
    throw badRequest(
      opts.tokenizer !== null ? opts.tokenizerField : opts.pathField,
      `the tokenizer has ${tokenizer.vocabSize} tokens, more than the model's vocab_size ${config.vocabSize}`,
    );
  }
  return { modelDir, config, tokenizer };
}

/** A model directory whose max_position_embeddings is shorter than the job's sequences fails the job naming `field`. */
export function checkModelLength(source: ModelSource, needed: number, field: string, what: string): void {
  if (source.config !== null && source.config.maxSeqLen < needed) {
    throw badRequest(field, `the model's max_position_embeddings (${source.config.maxSeqLen}) is shorter than ${what} (${needed})`);
  }
}
