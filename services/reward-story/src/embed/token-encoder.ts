import { Tokenizer } from '@huggingface/tokenizers';
import { AppError, ErrorCode } from '@rl/service-kit';

/**
 * Text → token ids with a HF `tokenizer.json`, truncated the way
 * sentence-transformers truncates: content tokens are cut so the whole
 * sequence, special tokens included, fits `maxSeqLength`.
 */

/** A batch padded to its longest sequence, row-major `[batch, seqLen]`. */
export interface PaddedBatch {
  batch: number;
  seqLen: number;
  inputIds: number[];
  attentionMask: number[];
}

/** Encodes texts for one model. */
export interface TokenEncoder {
  readonly maxSeqLength: number;
  /** How many special tokens the template puts before and after the content ([CLS] … [SEP]: 1 and 1). */
  readonly specialTokens: { readonly prefix: number; readonly suffix: number };
  /** Token ids of one text, special tokens included, at most `maxSeqLength` long. */
  encode(text: string): number[];
  /** Encodes and right-pads to the longest text of the batch. */
  encodeBatch(texts: readonly string[]): PaddedBatch;
}

/**
 * The part of `@huggingface/tokenizers` we use. Its bundled .d.ts files import
 * each other without extensions, which `nodenext` resolution cannot follow, so
 * the shapes are stated here once.
 */
interface HfTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
}

// Tokenising a huge text only to keep its first few hundred tokens wastes time;
// no real token averages anywhere near this many characters.
const MAX_CHARS_PER_TOKEN = 64;

/** Builds an encoder from parsed `tokenizer.json` / `tokenizer_config.json`. */
export function createTokenEncoder(tokenizerJson: Record<string, unknown>, tokenizerConfig: Record<string, unknown>, maxSeqLength: number): TokenEncoder {
  let tokenizer: HfTokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (cause) {
    throw new AppError(ErrorCode.Unavailable, 'tokenizer.json is not a tokenizer this runtime supports', { cause });
  }
  const { prefix, suffix } = findSpecialTokens(tokenizer);
  const maxContent = maxSeqLength - prefix.length - suffix.length;
  if (maxContent < 1) {
    throw new AppError(ErrorCode.Unavailable, `max sequence length ${maxSeqLength} leaves no room besides special tokens`);
  }
  const padId = readPadId(tokenizerJson) ?? tokenizer.token_to_id('[PAD]') ?? 0;

  const encode = (text: string): number[] => {
    const clipped = text.length > maxSeqLength * MAX_CHARS_PER_TOKEN ? text.slice(0, maxSeqLength * MAX_CHARS_PER_TOKEN) : text;
    const content = tokenizer.encode(clipped, { add_special_tokens: false }).ids;
    return [...prefix, ...content.slice(0, maxContent), ...suffix];
  };

  return {
    maxSeqLength,
    specialTokens: { prefix: prefix.length, suffix: suffix.length },
    encode,
    encodeBatch(texts) {
      const rows = texts.map(encode);
      const seqLen = Math.max(1, ...rows.map((r) => r.length));
      const inputIds: number[] = [];
      const attentionMask: number[] = [];
      for (const row of rows) {
        for (let t = 0; t < seqLen; t++) {
          inputIds.push(t < row.length ? row[t]! : padId);
          attentionMask.push(t < row.length ? 1 : 0);
        }
      }
      return { batch: texts.length, seqLen, inputIds, attentionMask };
    },
  };
}

/**
 * The ids the post-processor puts around a single sequence ([CLS] … [SEP] for
 * BERT), found by encoding a probe with and without special tokens, so that
 * truncation keeps them whatever the template is.
 */
function findSpecialTokens(tokenizer: HfTokenizer): { prefix: number[]; suffix: number[] } {
  const probe = 'hello world';
  const full = tokenizer.encode(probe, { add_special_tokens: true }).ids;
  const content = tokenizer.encode(probe, { add_special_tokens: false }).ids;
  for (let start = 0; start + content.length <= full.length; start++) {
    if (content.every((id, i) => full[start + i] === id)) {
      return { prefix: full.slice(0, start), suffix: full.slice(start + content.length) };
    }
  }
  throw new AppError(ErrorCode.Unavailable, 'tokenizer post-processor does not keep the text tokens contiguous');
}

function readPadId(tokenizerJson: Record<string, unknown>): number | undefined {
  const padding = tokenizerJson.padding;
  if (typeof padding !== 'object' || padding === null || !('pad_id' in padding)) return undefined;
  return typeof padding.pad_id === 'number' ? padding.pad_id : undefined;
}
