// Tokenizers as Hugging Face directories: tokenizer.json, tokenizer_config.json
// (chat template, bos/eos/pad, added tokens), chat_template.jinja and
// generation_config.json's eos ids, read as transformers reads them; and the
// files that let transformers, vLLM or this project load any of our tokenizers.
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AppError, ErrorCode, validationError } from '@rl/service-kit/core';
import { bpeModel, byteLevelBpeJson, specialToken } from './bpe/tokenizer-json.ts';
import { BYTE_SPECIALS, type ByteTokenizer } from './byte-tokenizer.ts';
import { CHAR_SPECIALS, type CharTokenizer } from './char-tokenizer.ts';
import { ChatTemplate } from './chat-template.ts';
import type { HfTokenizer, HfTokenizerConfig } from './hf-tokenizer.ts';
import { createTokenizer, type PolicyTokenizer, type TokenizerConfig } from './tokenizer.ts';

const TOKENIZER_JSON = 'tokenizer.json';
const TOKENIZER_CONFIG = 'tokenizer_config.json';
const CHAT_TEMPLATE_JINJA = 'chat_template.jinja';
const GENERATION_CONFIG = 'generation_config.json';
/** tokenizer_config.json key holding a byte or char tokenizer's own config, so it loads back as itself (transformers ignores it). */
const OWN_CONFIG_KEY = 'rl_tokenizer';

// transformers writes special tokens as strings or as AddedToken objects.
const TokenValue = z
  .union([z.string(), z.object({ content: z.string() }).loose()])
  .nullable()
  .optional();
const AddedTokenEntry = z
  .object({
    content: z.string(),
    special: z.boolean().default(false),
    lstrip: z.boolean().default(false),
    rstrip: z.boolean().default(false),
    single_word: z.boolean().default(false),
    normalized: z.boolean().default(false),
  })
  .loose();
const TokenizerConfigJson = z
  .object({
    chat_template: z
      .union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }).loose())])
      .nullable()
      .optional(),
    bos_token: TokenValue,
    eos_token: TokenValue,
    pad_token: TokenValue,
    add_bos_token: z.boolean().nullable().optional(),
    added_tokens_decoder: z.record(z.string().regex(/^\d+$/, 'keys must be token ids'), AddedTokenEntry).optional(),
    [OWN_CONFIG_KEY]: z.unknown().optional(),
  })
  .loose();
const GenerationConfigJson = z
  .object({
    eos_token_id: z
      .union([z.number().int().min(0), z.array(z.number().int().min(0))])
      .nullable()
      .optional(),
  })
  .loose();
const TokenizerJsonShape = z.object({ added_tokens: z.array(z.object({ id: z.number().int().min(0), content: z.string() }).loose()).optional() }).loose();

async function readText(path: string, required: boolean): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && code === 'ENOENT') return null;
    throw new AppError(ErrorCode.BadRequest, `${path}: cannot read (${code ?? 'error'})`, { cause: err });
  }
}

async function readJson<T extends z.ZodType>(path: string, schema: T, required: boolean): Promise<z.output<T> | null> {
  const text = await readText(path, required);
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the file's first characters.
    throw new AppError(ErrorCode.ValidationFailed, `${path}: not valid JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw validationError(parsed.error, path);
  return parsed.data;
}

const tokenString = (v: z.output<typeof TokenValue>): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : v.content);

/** transformers' choice among named templates: the one called "default". */
function pickTemplate(value: z.output<typeof TokenizerConfigJson>['chat_template'], file: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  const found = value.find((t) => t.name === 'default');
  if (found === undefined) {
    throw new AppError(ErrorCode.ValidationFailed, `${file}: chat_template has no template named "default" (names: ${value.map((t) => t.name).join(', ')})`);
  }
  return found.template;
}

/** tokenizer.json's added tokens plus those only tokenizer_config.json's added_tokens_decoder lists; a disagreement names the id. */
function mergeAddedTokens(
  tokenizer: z.output<typeof TokenizerJsonShape>,
  decoder: z.output<typeof TokenizerConfigJson>['added_tokens_decoder'],
  file: string,
): Record<string, unknown> {
  const added = [...(tokenizer.added_tokens ?? [])];
  const byId = new Map(added.map((t) => [t.id, t.content]));
  for (const [key, entry] of Object.entries(decoder ?? {})) {
    const id = Number(key);
    const known = byId.get(id);
    if (known === undefined) {
      const { content, special, lstrip, rstrip, single_word, normalized } = entry;
      added.push({ id, content, special, lstrip, rstrip, single_word, normalized });
      byId.set(id, content);
    } else if (known !== entry.content) {
      throw new AppError(
        ErrorCode.ValidationFailed,
        `${file}: added_tokens_decoder.${key} is ${JSON.stringify(entry.content)} but tokenizer.json's token ${id} is ${JSON.stringify(known)}`,
      );
    }
  }
  return { ...tokenizer, added_tokens: added.sort((a, b) => a.id - b.id) };
}

/**
 * Reads the tokenizer of a Hugging Face directory (or of the directory of a
 * tokenizer.json file path). tokenizer.json is required; tokenizer_config.json,
 * chat_template.jinja (which wins over tokenizer_config.json's template) and
 * generation_config.json are read when present. Everything is checked, and
 * errors name the file and key.
 */
export async function tokenizerFromDir(path: string): Promise<TokenizerConfig> {
  const isFile = await stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
  const dir = isFile ? dirname(path) : path;
  const tokenizerPath = isFile ? path : join(dir, TOKENIZER_JSON);
  const configPath = join(dir, TOKENIZER_CONFIG);
  const tokenizerJson = await readJson(tokenizerPath, TokenizerJsonShape, true);
  const config = (await readJson(configPath, TokenizerConfigJson, false)) ?? {};
  if (config[OWN_CONFIG_KEY] !== undefined) return ownConfig(config[OWN_CONFIG_KEY], configPath);
  const generation = await readJson(join(dir, GENERATION_CONFIG), GenerationConfigJson, false);
  const jinjaPath = join(dir, CHAT_TEMPLATE_JINJA);
  const jinja = await readText(jinjaPath, false);
  const chatTemplate = jinja ?? pickTemplate(config.chat_template, configPath);
  // Compiled here so that a syntax error names the file it came from.
  if (chatTemplate !== null) new ChatTemplate(chatTemplate, {}, jinja !== null ? jinjaPath : `${configPath}: chat_template`);
  const eos = generation?.eos_token_id;
  const hf: HfTokenizerConfig = {
    kind: 'hf',
    tokenizer: mergeAddedTokens(
      tokenizerJson as z.output<typeof TokenizerJsonShape>,
      config.added_tokens_decoder,
      configPath,
    ) as HfTokenizerConfig['tokenizer'],
    chatTemplate,
    bosToken: tokenString(config.bos_token),
    eosToken: tokenString(config.eos_token),
    padToken: tokenString(config.pad_token),
    addBosToken: config.add_bos_token ?? false,
    eosTokenIds: eos === undefined || eos === null ? [] : Array.isArray(eos) ? eos : [eos],
  };
  try {
    return createTokenizer(hf).config;
  } catch (err) {
    if (err instanceof AppError) throw new AppError(err.code, `${dir}: ${err.message}`, { cause: err });
    throw err;
  }
}

function ownConfig(value: unknown, file: string): TokenizerConfig {
  try {
    return createTokenizer(value).config;
  } catch (err) {
    if (err instanceof AppError) throw new AppError(err.code, `${file}: ${OWN_CONFIG_KEY}: ${err.message}`, { cause: err });
    throw err;
  }
}

/** What tokenizer_config.json needs to say about a tokenizer. */
interface HfView {
  tokenizer: { added_tokens?: ReadonlyArray<{ id: number; content: string; special?: boolean }> };
  bos: string | null;
  eos: string | null;
  pad: string | null;
  unk?: string;
  addBos: boolean;
  own?: TokenizerConfig;
}

function hfView(t: PolicyTokenizer): HfView {
  switch (t.kind) {
    case 'hf': {
      const c = (t as HfTokenizer).config;
      return { tokenizer: c.tokenizer, bos: c.bosToken, eos: c.eosToken, pad: c.padToken, addBos: c.addBosToken };
    }
    case 'byte':
      return {
        tokenizer: byteLevelBpeJson(BYTE_SPECIALS, [], 'gpt2'),
        bos: '<bos>',
        eos: '<|im_end|>',
        pad: '<pad>',
        addBos: false,
        own: (t as ByteTokenizer).config,
      };
    case 'char': {
      const c = (t as CharTokenizer).config;
      return { tokenizer: charTokenizerJson(c.characters), bos: '<bos>', eos: '<eos>', pad: '<pad>', unk: '<unk>', addBos: false, own: c };
    }
  }
}

/**
 * The tokenizer.json of a char tokenizer: a BPE without merges over the
 * specials and characters (each character is one token, an unknown one is
 * `<unk>`), with a decoder that joins tokens without spaces.
 */
function charTokenizerJson(characters: readonly string[]) {
  const vocab: Record<string, number> = {};
  [...CHAR_SPECIALS, ...characters].forEach((c, i) => (vocab[c] = i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: CHAR_SPECIALS.map((content, id) => specialToken(id, content)),
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: bpeModel(vocab, [], '<unk>'),
  };
}

/**
 * File name -> text of a Hugging Face tokenizer directory for any tokenizer:
 * tokenizer.json, tokenizer_config.json (chat template, specials, added tokens)
 * and special_tokens_map.json. A byte or char tokenizer's tokenizer.json encodes
 * as the class does, and tokenizer_config.json also records its own config so
 * {@link tokenizerFromDir} gives back the same kind.
 */
export function tokenizerFiles(t: PolicyTokenizer): Record<string, string> {
  const v = hfView(t);
  const specials = {
    ...(v.bos !== null && { bos_token: v.bos }),
    ...(v.eos !== null && { eos_token: v.eos }),
    ...(v.pad !== null && { pad_token: v.pad }),
    ...(v.unk !== undefined && { unk_token: v.unk }),
  };
  const addedTokensDecoder = Object.fromEntries(
    (v.tokenizer.added_tokens ?? []).map(({ id, ...token }) => [
      String(id),
      { lstrip: false, normalized: false, rstrip: false, single_word: false, ...token, special: token.special === true },
    ]),
  );
  const config = {
    add_bos_token: v.addBos,
    add_eos_token: false,
    added_tokens_decoder: addedTokensDecoder,
    bos_token: v.bos,
    eos_token: v.eos,
    pad_token: v.pad,
    ...(v.unk !== undefined && { unk_token: v.unk }),
    clean_up_tokenization_spaces: false,
    model_max_length: 1_000_000_000,
    tokenizer_class: 'PreTrainedTokenizerFast',
    ...(t.chatTemplate !== '' && { chat_template: t.chatTemplate }),
    ...(v.own !== undefined && { [OWN_CONFIG_KEY]: v.own }),
  };
  return {
    [TOKENIZER_JSON]: `${JSON.stringify(v.tokenizer)}\n`,
    [TOKENIZER_CONFIG]: `${JSON.stringify(config, null, 2)}\n`,
    'special_tokens_map.json': `${JSON.stringify(specials, null, 2)}\n`,
  };
}

/**
 * bos/eos/pad ids for generation_config.json and config.json (eos is a list when
 * generation stops on several ids). Without a BOS token the pad stands in, as in
 * Qwen's own files (bos_token_id = <|endoftext|>).
 */
export function generationIds(t: PolicyTokenizer): { bos: number; eos: number | number[]; pad: number } {
  return { bos: t.bosId ?? t.padId, eos: t.eosIds.length === 1 ? t.eosId : [...t.eosIds], pad: t.padId };
}
