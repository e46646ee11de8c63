import { describe, expect, it } from 'vitest';
import {
  beyondReference,
  brevity,
  coherence,
  copyMeasure,
  entropyScore,
  infoGain,
  nonRepetition,
  novelty,
  quality,
  referenceRecall,
  relevance,
  type ContextVectors,
} from './formulas.ts';
import { DEFAULT_TUNING } from './tuning.ts';

/** A unit vector along the given direction. */
const u = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};
const ctx = (c: Partial<ContextVectors>): ContextVectors => ({ userInput: undefined, story: undefined, recent: [], ...c });
const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);

describe('relevance = clamp(cos(reply, user_input), 0, 1)', () => {
  it('matches hand-computed values and clamps opposite directions to 0', () => {
    const c = ctx({ userInput: u(1, 1) });
    expect(relevance(u(1, 0), c)).toBeCloseTo(Math.SQRT1_2, 6);
    expect(relevance(u(1, 1), c)).toBeCloseTo(1, 6);
    expect(relevance(u(-1, 0), c)).toBe(0);
    expect(relevance(u(1, 0), ctx({}))).toBeUndefined();
  });

  it('rises as the reply turns toward the user input', () => {
    const c = ctx({ userInput: u(0, 1) });
    expect(increasing([0, 0.3, 0.6, 1, 3].map((y) => relevance(u(1, y), c)!))).toBe(true);
  });
});

describe('coherence = mean(cos to story, cos to the centroid of recent turns), each clamped', () => {
  it('matches hand-computed values', () => {
    // Centroid of (0,1,0) and (0,0,1) is (0,.5,.5): cosine with (0,1,0) is 1/√2.
    const c = ctx({ story: u(1, 0, 0), recent: [u(0, 1, 0), u(0, 0, 1)] });
    expect(coherence(u(0, 1, 0), c)).toBeCloseTo(Math.SQRT1_2 / 2, 6);
    expect(coherence(u(1, 0, 0), ctx({ story: u(1, 0, 0) }))).toBeCloseTo(1, 6);
    expect(coherence(u(0, 1, 0), ctx({ recent: [u(0, 1, 0)] }))).toBeCloseTo(1, 6);
    expect(coherence(u(1, 0, 0), ctx({ userInput: u(1, 0, 0) }))).toBeUndefined();
  });

  it('rises as the reply moves toward the setting and toward the recent turns', () => {
    const c = ctx({ story: u(1, 0, 0), recent: [u(0, 1, 0)] });
    expect(increasing([0, 0.5, 1, 2].map((s) => coherence(u(s, 0, 1), c)!))).toBe(true);
    expect(increasing([0, 0.5, 1, 2].map((h) => coherence(u(0, h, 1), c)!))).toBe(true);
  });

  it('quality is coherence where it applies, else relevance', () => {
    const c = ctx({ userInput: u(1, 0), story: u(0, 1) });
    // The reply echoes the user input exactly (relevance 1) but misses the story: quality 0.
    expect(quality(u(1, 0), c)).toBeCloseTo(0, 6);
    expect(quality(u(0, 1), c)).toBeCloseTo(1, 6);
    expect(quality(u(1, 0), ctx({ userInput: u(1, 0) }))).toBeCloseTo(1, 6);
    expect(quality(u(1, 0), ctx({}))).toBeUndefined();
  });
});

describe('brevity = exp(1 - r / c) below r = 0.5 × the reference length, else 1', () => {
  const t = DEFAULT_TUNING;
  it('leaves replies of half the reference or more alone and shrinks shorter ones towards 0', () => {
    expect(brevity(10, 20, t)).toBe(1);
    expect(brevity(40, 20, t)).toBe(1);
    expect(brevity(5, 20, t)).toBeCloseTo(Math.exp(1 - 10 / 5), 12);
    expect(brevity(1, 20, t)).toBeCloseTo(Math.exp(-9), 12);
    expect(brevity(0, 20, t)).toBe(0);
    expect(brevity(0, 0, t)).toBe(1);
    expect(brevity(3, 20, { brevityRatio: 0.1 })).toBe(1);
  });
});

describe('reference_recall = clamp(recall or cosine, 0, 1)', () => {
  it('clamps', () => {
    expect(referenceRecall(0.4)).toBe(0.4);
    expect(referenceRecall(-0.2)).toBe(0);
    expect(referenceRecall(1.0000001)).toBe(1);
  });
});

describe('novelty = 1 - the larger copy penalty', () => {
  it('is 1 without copies, and falls with the worse of the two', () => {
    expect(novelty()).toBe(1);
    expect(novelty(undefined, undefined)).toBe(1);
    expect(novelty({ cosine: 0.2, overlap: 0.75, penalty: 0.5 }, { cosine: 0.95, overlap: 0, penalty: 0.5 })).toBe(0.5);
    expect(novelty({ cosine: 0.2, overlap: 0.2, penalty: 0 }, { cosine: 1, overlap: 1, penalty: 1 })).toBe(0);
  });
});

describe('non_repetition = 1 - max(excess of cosine over 0.9, excess of trigram overlap over 0.5)', () => {
  const t = DEFAULT_TUNING;

  it('is 1 for a distinct reply, 0 for a verbatim copy even when the embedder sees nothing', () => {
    const far = copyMeasure(u(1, 0), 'a knight draws his sword', [{ text: 'the dragon sleeps in its cave', vector: u(0, 1) }], t)!;
    expect(nonRepetition(far)).toBe(1);
    const zero = new Float32Array(2);
    const verbatim = copyMeasure(zero, 'The dragon sleeps.', [{ text: 'the dragon sleeps', vector: zero }], t)!;
    expect(verbatim).toEqual({ cosine: 0, overlap: 1, penalty: 1 });
    expect(nonRepetition(verbatim)).toBe(0);
    expect(copyMeasure(u(1, 0), 'x', [], t)).toBeUndefined();
  });

  it('falls linearly once the cosine passes the threshold: cos 0.95 gives 0.5', () => {
    const x = u(1, 0);
    const near = u(0.95, Math.sqrt(1 - 0.95 ** 2));
    expect(nonRepetition(copyMeasure(x, 'p q r', [{ text: 'x y z', vector: near }], t)!)).toBeCloseTo(0.5, 5);
  });

  it('falls as more of the reply repeats an earlier one, and as the meaning gets closer', () => {
    // 12 distinct words: 10 trigrams. Copying the first m words shares m - 2 of them.
    const earlier = { text: 'a b c d e f g h i j k l', vector: u(0, 1) };
    const fill = ['r', 's', 't', 'v', 'w', 'x', 'y', 'z'];
    const copying = (m: number) => [...'abcdefghijkl'.slice(0, m)].concat(fill.slice(0, 12 - m)).join(' ');
    const byWords = [4, 8, 10, 12].map((m) => nonRepetition(copyMeasure(u(1, 0), copying(m), [earlier], t)!));
    // Overlap 0.2, 0.6, 0.8, 1 -> excess over 0.5: 0, 0.2, 0.6, 1.
    expect(byWords.map((x) => Number(x.toFixed(9)))).toEqual([1, 0.8, 0.4, 0]);
    // Cosine 0, 0.92, 0.96, 1 -> excess over 0.9: 0, 0.2, 0.6, 1.
    const byMeaning = [0, 0.92, 0.96, 1].map((c) => nonRepetition(copyMeasure(u(c, Math.sqrt(1 - c * c)), 'p q r', [{ text: 'x y z', vector: u(1, 0) }], t)!));
    expect(byMeaning.map((x) => Number(x.toFixed(5)))).toEqual([1, 0.8, 0.4, 0]);
  });
});

describe('beyond_reference = sigmoid((quality - reference quality) / 0.1) × (1 - copy penalty)', () => {
  const t = DEFAULT_TUNING;
  const noCopy = { cosine: 0, overlap: 0, penalty: 0 };

  it('is 0.5 at equal quality, sigmoid(1) when 0.1 better, and rises with the margin', () => {
    expect(beyondReference(0.6, 0.6, noCopy, t)).toBe(0.5);
    expect(beyondReference(0.7, 0.6, noCopy, t)).toBeCloseTo(0.7310585786, 9);
    expect(increasing([0.2, 0.5, 0.6, 0.7, 1].map((q) => beyondReference(q, 0.6, noCopy, t)))).toBe(true);
  });

  it('pays nothing for a copy of the reference, however good', () => {
    expect(beyondReference(1, 0, { cosine: 1, overlap: 1, penalty: 1 }, t)).toBe(0);
    expect(beyondReference(0.6, 0.6, { cosine: 0.95, overlap: 0, penalty: 0.5 }, t)).toBe(0.25);
  });
});

describe('signal components', () => {
  const t = DEFAULT_TUNING;

  it('info_gain = sigmoid(mean gain / 0.5 nats): 0.5 at no gain, rising with the gain', () => {
    expect(infoGain(0, t)).toBe(0.5);
    expect(infoGain(0.5, t)).toBeCloseTo(0.7310585786, 9);
    expect(increasing([-2, -0.5, 0, 0.5, 2].map((g) => infoGain(g, t)))).toBe(true);
  });

  it('entropy = 1 - exp(-mean entropy / 1 nat): 0 at a deterministic policy, rising and saturating', () => {
    expect(entropyScore(0, t)).toBe(0);
    expect(entropyScore(1, t)).toBeCloseTo(1 - Math.exp(-1), 12);
    expect(increasing([0, 0.5, 1, 2, 4].map((h) => entropyScore(h, t)))).toBe(true);
    expect(entropyScore(20, t)).toBeLessThanOrEqual(1);
  });
});
