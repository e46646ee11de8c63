import { describe, expect, it } from 'vitest';
import { forwardFlops, generateFlops, scoreFlops, trainFlops } from './flops.ts';

// V=10, D=4, L=2, F=6, 2 heads of 2. Per token and layer: q, k, v 2·4·4 = 32
// each, o 2·4·4 = 32, gate+up 2·4·12 = 96, down 2·6·4 = 48, so 272 in the projections.
const cfg = { vocabSize: 10, dModel: 4, nLayers: 2, dFF: 6, nHeads: 2, nKvHeads: 2, headDim: 2 };
// The same with one key/value head: k and v 2·4·2 = 16 each, so 240.
const gqa = { ...cfg, nKvHeads: 1 };
// 2 heads of 4 (headDim != D / nHeads): q 2·4·8 = 64, k, v 64 each, o 2·8·4 = 64, so 400.
const wide = { ...cfg, headDim: 4 };

describe('flops', () => {
  it('counts a teacher-forced pass by hand', () => {
    // rows 2, T = 3 + 2: attention 2·2·5·4 = 80 per token and layer, so
    // 2 rows · 5 tokens · 2 layers · (272 + 80) = 7040; head 2·2·2·4·10 = 320.
    expect(scoreFlops(cfg, 2, 3, 2)).toBe(7360);
    expect(trainFlops(cfg, 2, 3, 2)).toBe(3 * 7360);
  });

  it('counts KV-cache generation by hand', () => {
    // prefill: 3 tokens · 2 layers · (272 + 2·2·3·4) + head 2·4·10 = 1920 + 80 = 2000;
    // each of the 2 later steps: 2 layers · (272 + 2·2·16·4) + 80 = 1136.
    expect(generateFlops(cfg, 1, 3, 16, 3)).toBe(2000 + 2 * 1136);
    expect(generateFlops(cfg, 1, 3, 16, 0)).toBe(0);
  });

  it('counts grouped-query attention and an explicit head size by hand', () => {
    // attention 2·2·5·(2·2) = 80 per token and layer, as without grouping:
    // 2 rows · 5 tokens · 2 layers · (240 + 80) = 6400; head 320.
    expect(scoreFlops(gqa, 2, 3, 2)).toBe(6720);
    // attention 2·2·5·(2·4) = 160: 2 · 5 · 2 · (400 + 160) = 11200; head 320.
    expect(scoreFlops(wide, 2, 3, 2)).toBe(11_520);
  });

  it('scales linearly in rows', () => {
    const pass = { queries: 8, keys: 8, headColumns: 2 };
    expect(forwardFlops(cfg, { rows: 64, ...pass })).toBe(64 * forwardFlops(cfg, { rows: 1, ...pass }));
  });
});
