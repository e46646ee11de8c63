// Byte-level BPE training (the algorithm of Sennrich et al. and of the
// `tokenizers` BpeTrainer): count pre-tokenized words, then repeatedly merge
// the most frequent adjacent pair until the vocabulary is full. Deterministic:
// ties go to the pair whose merged string sorts first.
import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { byteLevelBpeJson, type PreTokenizerStyle, type TokenizerJson } from './tokenizer-json.ts';

/** Options of {@link trainBpe}. */
export interface TrainBpeOptions {
  /** Target vocabulary size, bytes and specials included. */
  vocabSize: number;
  /** Special tokens, ids 256.. in order. */
  specials: readonly string[];
  /** Pairs seen fewer times than this are never merged. @default 2 */
  minFrequency?: number;
  /** Word splitting before merges. @default "qwen2" */
  pretokenizer?: PreTokenizerStyle;
}

/** Trains a byte-level BPE on `texts` and returns its tokenizer.json. */
export function trainBpe(texts: Iterable<string>, options: TrainBpeOptions): TokenizerJson {
  const { vocabSize, specials, minFrequency = 2, pretokenizer = 'qwen2' } = options;
  const base = 256 + specials.length;
  if (!Number.isInteger(vocabSize) || vocabSize < base) {
    throw new AppError(ErrorCode.InvalidParams, `vocabSize: expected an integer >= ${base} (bytes + specials), got ${vocabSize}`);
  }
  // Pre-tokenize with the library's own pre-tokenizer, so training and encoding split text identically.
  const pre = new HfTokenizerImpl(byteLevelBpeJson(specials, [], pretokenizer), {}).pre_tokenizer;
  if (pre === null) throw new AppError(ErrorCode.Internal, 'byte-level BPE has no pre-tokenizer');
  const counts = new Map<string, number>();
  for (const text of texts) for (const w of pre.pre_tokenize(text)) counts.set(w, (counts.get(w) ?? 0) + 1);

  const words = [...counts].map(([w, count]) => ({ symbols: [...w], count }));
  const merges: Array<[string, string]> = [];
  const known = new Set(words.flatMap((w) => w.symbols));
  let size = base;
  while (size < vocabSize) {
    const pairs = new Map<string, { a: string; b: string; n: number }>();
    for (const { symbols, count } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const a = symbols[i]!;
        const b = symbols[i + 1]!;
        const key = `${a}\u0000${b}`;
        const p = pairs.get(key);
        if (p === undefined) pairs.set(key, { a, b, n: count });
        else p.n += count;
      }
    }
    let best: { a: string; b: string; n: number } | undefined;
    for (const p of pairs.values()) {
      if (best === undefined || p.n > best.n || (p.n === best.n && p.a + p.b < best.a + best.b)) best = p;
    }
    if (best === undefined || best.n < minFrequency) break;
    const { a, b } = best;
    merges.push([a, b]);
    const joined = a + b;
    if (!known.has(joined)) {
      known.add(joined);
      size++;
    }
    for (const w of words) w.symbols = mergePair(w.symbols, a, b, joined);
  }
  return byteLevelBpeJson(specials, merges, pretokenizer);
}

function mergePair(symbols: string[], a: string, b: string, joined: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < symbols.length; i++) {
    if (symbols[i] === a && symbols[i + 1] === b) {
      out.push(joined);
      i++;
    } else out.push(symbols[i]!);
  }
  return out;
}
