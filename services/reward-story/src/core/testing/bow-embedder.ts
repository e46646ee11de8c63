import type { Embedder } from '../embedder.ts';
import { wordTokens } from '../lexical-overlap.ts';

/** A bag-of-words {@link Embedder} with its call log, for tests. */
export interface BowEmbedder extends Embedder {
  /** The `texts` argument of every `embed` call, in order. */
  readonly calls: string[][];
  /** The `texts` argument of every `embedTokens` call, in order. */
  readonly tokenCalls: string[][];
}

/**
 * A deterministic embedder for tests: one dimension per vocabulary word, the
 * word's count in the text, L2-normalised; words outside the vocabulary are
 * ignored, and a text with none is the zero vector. Cosines are then easy to
 * work out by hand: two texts with one shared word each of two distinct words
 * have cosine 1/2.
 */
export function bowEmbedder(vocabulary: ReadonlyArray<string>): BowEmbedder {
  const slot = new Map(vocabulary.map((w, i) => [w.toLowerCase(), i]));
  const calls: string[][] = [];
  const tokenCalls: string[][] = [];
  const oneHot = (w: string) => {
    const v = new Float32Array(vocabulary.length);
    const i = slot.get(w);
    if (i !== undefined) v[i] = 1;
    return v;
  };
  return {
    modelId: 'bow-test',
    dim: vocabulary.length,
    calls,
    tokenCalls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => {
        const v = new Float32Array(vocabulary.length);
        for (const w of wordTokens(t)) {
          const i = slot.get(w);
          if (i !== undefined) v[i]! += 1;
        }
        const norm = Math.hypot(...v);
        if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
        return v;
      });
    },
    // Token states: one one-hot state per word (zero outside the vocabulary), so
    // the reference's share of vocabulary words the reply also uses is its recall.
    async embedTokens(texts) {
      tokenCalls.push([...texts]);
      return texts.map((t) => wordTokens(t).map(oneHot));
    },
  };
}
