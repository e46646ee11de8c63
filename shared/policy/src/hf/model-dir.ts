// Hugging Face model directories: config.json, model.safetensors (or
// model.safetensors.index.json + shards), generation_config.json and the
// tokenizer files. Loading validates everything before returning anything;
// saving writes a sibling temp directory and renames it into place.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { AppError, ErrorCode, getOwn, setOwn } from '@rl/service-kit/core';
import type { PolicyWeights } from '../embedded-policy.ts';
import type { ModelConfig } from '../model/model-config.ts';
import { checkHostParams, type HostParams, type HostTensor } from '../model/params.ts';
import { generationIds, tokenizerFiles, tokenizerFromDir } from '../tokenizers/tokenizer-dir.ts';
import { createTokenizer } from '../tokenizers/tokenizer.ts';
import { readSafetensors, writeSafetensors, type StoredDtype } from '../weights/safetensors.ts';
import { parseHfConfig, toHfConfig } from './hf-config.ts';

export const CONFIG_FILE = 'config.json';
export const WEIGHTS_FILE = 'model.safetensors';
export const INDEX_FILE = 'model.safetensors.index.json';
export const GENERATION_CONFIG_FILE = 'generation_config.json';
/** config.json key holding the policy version of a directory this project wrote. */
export const VERSION_KEY = 'rl_policy_version';
/** Version of a directory without {@link VERSION_KEY} (e.g. one downloaded from the Hub). */
export const HF_VERSION = 'hf';

/** Weights of a directory read without its tokenizer. */
export type ModelDirWeights = Omit<PolicyWeights, 'tokenizer'>;

/** Options of {@link loadModelDir}. */
export interface LoadModelDirOptions {
  /** Read the tokenizer files too. @default true */
  tokenizer?: boolean;
}

/** Options of {@link saveModelDir}. */
export interface SaveModelDirOptions {
  /** Precision of model.safetensors (BF16 rounds to nearest even). @default 'F32' */
  dtype?: Extract<StoredDtype, 'F32' | 'BF16'>;
}

const Index = z.object({ weight_map: z.record(z.string(), z.string()) });

function invalid(message: string): AppError {
  return new AppError(ErrorCode.ValidationFailed, message);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Whether `path` is a model directory (holds a config.json). */
export async function isModelDir(path: string): Promise<boolean> {
  return isFile(join(path, CONFIG_FILE));
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw invalid(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the file's text.
    throw invalid(`${path}: (root): not valid JSON`);
  }
}

/**
 * Reads a model directory. Every file is read and checked (config, tokenizer,
 * each shard against the index, every tensor's name and shape) before the
 * result exists, so a bad directory gives an error and nothing half-loaded.
 */
export async function loadModelDir(dir: string): Promise<PolicyWeights>;
export async function loadModelDir(dir: string, options: { tokenizer: false }): Promise<ModelDirWeights>;
export async function loadModelDir(dir: string, options: LoadModelDirOptions): Promise<PolicyWeights | ModelDirWeights>;
export async function loadModelDir(dir: string, options: LoadModelDirOptions = {}): Promise<PolicyWeights | ModelDirWeights> {
  const configPath = join(dir, CONFIG_FILE);
  if (!(await isFile(configPath))) throw new AppError(ErrorCode.NotFound, `${dir}: not a model directory (no ${CONFIG_FILE})`);
  const json = await readJson(configPath);
  const parsed = parseHfConfig(json, configPath);
  const rawVersion = getOwn(json as Record<string, unknown>, VERSION_KEY);
  if (rawVersion !== undefined && (typeof rawVersion !== 'string' || rawVersion === '')) {
    throw invalid(`${configPath}: ${VERSION_KEY}: must be a non-empty string, got ${JSON.stringify(rawVersion)}`);
  }
  const version = rawVersion ?? HF_VERSION;
  const tokenizer = options.tokenizer === false ? undefined : await tokenizerFromDir(dir);
  if (tokenizer !== undefined) {
    const vocab = createTokenizer(tokenizer).vocabSize;
    if (vocab > parsed.vocabSize) throw invalid(`${configPath}: vocab_size: ${parsed.vocabSize} is smaller than the tokenizer's ${vocab}`);
  }
  const { tensors, source, fileOf } = await readWeights(dir);
  const { config, params } = fitToConfig(parsed, json as Record<string, unknown>, tensors, fileOf);
  checkHostParams(config, params, source);
  return tokenizer === undefined ? { version, config, params } : { version, config, tokenizer, params };
}

/** All tensors of the directory (one file, or every shard checked against the index), with the file each came from. */
async function readWeights(dir: string): Promise<{ tensors: HostParams; source: string; fileOf: (name: string) => string }> {
  const single = join(dir, WEIGHTS_FILE);
  // transformers prefers model.safetensors when both it and an index are present.
  if (await isFile(single)) {
    const { tensors } = await readSafetensors(single);
    return { tensors, source: single, fileOf: () => single };
  }
  const indexPath = join(dir, INDEX_FILE);
  if (!(await isFile(indexPath))) {
    // PyTorch's pickle checkpoints can run code when loaded; only safetensors are read.
    const pickled = (await isFile(join(dir, 'pytorch_model.bin'))) || (await isFile(join(dir, 'pytorch_model.bin.index.json')));
    throw invalid(`${dir}: no ${WEIGHTS_FILE} or ${INDEX_FILE}${pickled ? ' (pytorch_model.bin is not read: save the model with safe_serialization)' : ''}`);
  }
  const parsed = Index.safeParse(await readJson(indexPath));
  if (!parsed.success) throw invalid(`${indexPath}: weight_map: must map tensor names to shard file names`);
  const weightMap = parsed.data.weight_map;
  const shards = [...new Set(Object.values(weightMap))].sort();
  for (const shard of shards) {
    if (shard !== basename(shard) || shard === '.' || shard === '..' || shard.includes('\\')) {
      throw invalid(`${indexPath}: weight_map: shard ${JSON.stringify(shard)} must be a file name in the directory`);
    }
    if (!(await isFile(join(dir, shard)))) throw invalid(`${indexPath}: weight_map: shard ${shard} is missing`);
  }
  const tensors: HostParams = {};
  const from = new Map<string, string>();
  for (const shard of shards) {
    const path = join(dir, shard);
    const read = await readSafetensors(path);
    for (const [name, t] of Object.entries(read.tensors)) {
      const earlier = from.get(name);
      if (earlier !== undefined) throw invalid(`${path}: tensor ${name} is also in ${earlier}`);
      const mapped = getOwn(weightMap, name);
      if (mapped === undefined) throw invalid(`${path}: tensor ${name} is not in ${INDEX_FILE}'s weight_map`);
      if (mapped !== shard) throw invalid(`${path}: tensor ${name} is mapped to ${mapped} in ${INDEX_FILE}`);
      from.set(name, path);
      setOwn(tensors, name, t);
    }
  }
  for (const [name, shard] of Object.entries(weightMap)) {
    if (!from.has(name)) throw invalid(`${join(dir, shard)}: tensor ${name} (named in ${INDEX_FILE}) is missing`);
  }
  return { tensors, source: indexPath, fileOf: (name) => from.get(name) ?? indexPath };
}

function withoutLmHead(params: HostParams): HostParams {
  const { 'lm_head.weight': _dropped, ...rest } = params;
  return rest;
}

function sameValues(a: HostTensor, b: HostTensor): boolean {
  if (a.shape.join(',') !== b.shape.join(',') || a.data.length !== b.data.length) return false;
  for (let i = 0; i < a.data.length; i++) if (!Object.is(a.data[i], b.data[i])) return false;
  return true;
}

/**
 * The checkpoint's tensors as the engine's parameters (and the config they
 * imply): what transformers tolerates is reconciled here, anything else is
 * left for checkHostParams.
 */
function fitToConfig(
  parsed: ModelConfig,
  json: Record<string, unknown>,
  tensors: HostParams,
  fileOf: (name: string) => string,
): { config: ModelConfig; params: HostParams } {
  let params: HostParams = {};
  for (const [name, t] of Object.entries(tensors)) {
    // Old Llama checkpoints saved the RoPE table as a buffer; it is recomputed from the config.
    if (name.endsWith('.rotary_emb.inv_freq')) continue;
    setOwn(params, name, t);
  }
  let config = parsed;
  const lmHead = getOwn(params, 'lm_head.weight');
  if (config.valueHead && lmHead === undefined) {
    // A classification checkpoint has no LM head whatever tie_word_embeddings says (transformers never reads it
    // there); the engine's critic then uses the embedding, which it never needs for values.
    config = { ...config, tieEmbeddings: true };
  } else if (config.tieEmbeddings && lmHead !== undefined) {
    // A tied causal LM may carry a copy of the embedding, which is the same parameter.
    const embed = getOwn(params, 'model.embed_tokens.weight');
    if (embed === undefined || !sameValues(lmHead, embed)) {
      throw invalid(`${fileOf('lm_head.weight')}: tensor lm_head.weight differs from model.embed_tokens.weight, but tie_word_embeddings is true`);
    }
    params = withoutLmHead(params);
  }
  const arch = getOwn(json, 'architectures');
  const isSequenceClassification = Array.isArray(arch) && typeof arch[0] === 'string' && arch[0].endsWith('ForSequenceClassification');
  if (config.valueHead && isSequenceClassification && getOwn(params, 'score.bias') === undefined) {
    // ...ForSequenceClassification's score Linear has no bias; the engine's value head has one, here zero.
    params['score.bias'] = { shape: [1], data: new Float32Array(1) };
  }
  return { config, params };
}

/**
 * Writes `w` as a Hugging Face model directory at `dir` (config.json,
 * model.safetensors with transformers' `{format: pt}` metadata,
 * generation_config.json, tokenizer files), via `<dir>.tmp-<pid>` renamed into
 * place. An existing `dir` is replaced only if it is a model directory or empty.
 */
export async function saveModelDir(dir: string, w: PolicyWeights, options: SaveModelDirOptions = {}): Promise<void> {
  const dtype = options.dtype ?? 'F32';
  const target = resolve(dir);
  checkHostParams(w.config, w.params);
  const tokenizer = createTokenizer(w.tokenizer);
  const ids = generationIds(tokenizer);
  // A token-classification model has no LM head; a critic made from an untied policy drops it.
  const tensors = w.config.valueHead ? withoutLmHead(w.params) : w.params;
  await refuseToReplace(target);
  const tmp = `${target}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    const saved = w.config.valueHead ? { ...w.config, tieEmbeddings: true } : w.config;
    const config = { ...toHfConfig(saved, ids, { dtype }), [VERSION_KEY]: w.version };
    await writeFile(join(tmp, CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`);
    await writeFile(join(tmp, GENERATION_CONFIG_FILE), `${JSON.stringify({ bos_token_id: ids.bos, eos_token_id: ids.eos, pad_token_id: ids.pad }, null, 2)}\n`);
    for (const [name, text] of Object.entries(tokenizerFiles(tokenizer))) await writeFile(join(tmp, name), text);
    await writeSafetensors(join(tmp, WEIGHTS_FILE), tensors, { format: 'pt' }, { dtype });
    const old = `${target}.old-${process.pid}`;
    let moved = false;
    if (await exists(target)) {
      await rm(old, { recursive: true, force: true });
      await rename(target, old);
      moved = true;
    }
    await rename(tmp, target);
    if (moved) await rm(old, { recursive: true, force: true });
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Refuses to replace anything but a model directory or an empty directory. */
async function refuseToReplace(target: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(target);
  } catch {
    return;
  }
  if (!info.isDirectory()) throw new AppError(ErrorCode.Conflict, `${target} exists and is not a directory; not replacing it`);
  if (await isModelDir(target)) return;
  if ((await readdir(target)).length > 0) throw new AppError(ErrorCode.Conflict, `${target} exists and is not a model directory; not replacing it`);
}
