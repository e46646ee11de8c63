import type { Embedder } from '../embedder.ts';
import { wordTokens } from '../lexical-overlap.ts';

/** A bag-of-words {@link Embedder} with its call log, for tests. */
export interface BowEmbedder extends Embedder {
  /** The `texts` argument of every `embed` call, in order. */
  readonly calls: string[][];
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
  return {
    modelId: 'bow-test',
    dim: vocabulary.length,
    calls,
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
  };
}
