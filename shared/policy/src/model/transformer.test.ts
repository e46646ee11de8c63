import { valueAndGrad } from '@jax-js/jax';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTensorBackend, np, tree, type Tensor } from './backend.ts';
import { packPairs } from '../training/batch-layout.ts';
import { pickTokens, responseLogSoftmax } from './kernels.ts';
import { ModelConfig } from './model-config.ts';
import { initHostParams, toDevice, type HostParams, type Params } from './params.ts';
import { blockTensors } from '../generation/score.ts';

const cfg = ModelConfig.parse({ vocabSize: 10, dModel: 8, nLayers: 2, nHeads: 2, dFF: 12, maxSeqLen: 16, tieEmbeddings: false });
const PAIRS = [
  { prompt: [1, 2, 3], response: [4, 5] },
  { prompt: [6], response: [7, 8, 9] },
];

beforeAll(ensureTensorBackend);

/** Sum of the response log-probs (mask applied) as a traced function of the parameters. */
function objective(params: Params): Tensor {
  const block = packPairs(PAIRS, 2, 4, 3, 0);
  const [prompt, response, positions, keyMask] = blockTensors(block);
  const lsm = responseLogSoftmax(cfg, params, prompt, response.ref, positions, keyMask);
  tree.dispose(params);
  return np.sum(pickTokens(lsm, response).mul(np.array(block.responseMask).reshape([2, 3])));
}

function lossAt(host: HostParams): number {
  return Number(objective(toDevice(host)).dataSync()[0]);
}

describe('transformer', () => {
  it('initialises deterministically from the seed', () => {
    const a = initHostParams(cfg, 7);
    expect(initHostParams(cfg, 7)).toEqual(a);
    expect(initHostParams(cfg, 8)['embed']!.data).not.toEqual(a['embed']!.data);
    expect(Object.keys(a)).toContain('lm_head');
    expect(Array.from(a['final_norm']!.data)).toEqual(new Array(8).fill(1));
  });

  it('gradients from autodiff match central finite differences', () => {
    const host = initHostParams(cfg, 11);
    // Larger weights than the init so every path carries signal.
    for (const t of Object.values(host)) for (let i = 0; i < t.data.length; i++) t.data[i] = t.data[i]! * 3 + (i % 3) * 0.01;
    const [value, grads] = valueAndGrad(objective)(toDevice(host));
    expect(Number(value.dataSync()[0])).toBeCloseTo(lossAt(host), 4);
    const probes: Array<[string, number]> = [
      ['embed', 13],
      ['layers.0.attn.qkv', 5],
      ['layers.1.attn.qkv', 100],
      ['layers.0.attn.out', 7],
      ['layers.1.mlp.gate_up', 40],
      ['layers.0.mlp.down', 3],
      ['layers.1.attn_norm', 2],
      ['final_norm', 6],
      ['lm_head', 17],
    ];
    const analytic = Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, g.dataSync()]));
    const eps = 1e-2;
    for (const [name, i] of probes) {
      const data = host[name]!.data;
      const saved = data[i]!;
      data[i] = saved + eps;
      const up = lossAt(host);
      data[i] = saved - eps;
      const down = lossAt(host);
      data[i] = saved;
      const numeric = (up - down) / (2 * eps);
      const g = analytic[name]![i]!;
      expect(Math.abs(g - numeric), `${name}[${i}]: autodiff ${g}, numeric ${numeric}`).toBeLessThan(2e-3 + 0.01 * Math.abs(numeric));
    }
  });

  it('padding does not change the scores: the same pair scores equally at any padded width', () => {
    const params = toDevice(initHostParams(cfg, 5));
    const score = (promptWidth: number, responseWidth: number): number[] => {
      const block = packPairs([PAIRS[0]!], 1, promptWidth, responseWidth, 0);
      const [prompt, response, positions, keyMask] = blockTensors(block);
      const lp = pickTokens(responseLogSoftmax(cfg, tree.ref(params), prompt, response.ref, positions, keyMask), response);
      return Array.from(lp.dataSync()).slice(0, 2);
    };
    const tight = score(3, 2);
    for (const [p, r] of [
      [8, 8],
      [5, 3],
    ] as const)
      score(p, r).forEach((v, j) => expect(Math.abs(v - tight[j]!)).toBeLessThan(1e-5));
    tree.dispose(params);
  });
});
