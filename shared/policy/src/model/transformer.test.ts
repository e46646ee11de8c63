import { valueAndGrad } from '@jax-js/jax';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTensorBackend, jit, np, tree, type Tensor } from './backend.ts';
import { packPairs } from '../training/batch-layout.ts';
import { distributionsAt, pickTokens, responseStates, valuesAt } from './kernels.ts';
import { ModelConfig } from './model-config.ts';
import { initHostParams, toDevice, type HostParams, type Params } from './params.ts';
import { blockTensors } from '../generation/score.ts';

const SHAPE = { vocabSize: 10, dModel: 8, nLayers: 2, nHeads: 4, nKvHeads: 2, dFF: 12, maxSeqLen: 16 };
// Every kind of parameter between them: Llama with all biases, an untied head,
// grouped queries, a head size other than dModel / nHeads and a value head;
// Qwen3 with q/k norms and attention biases; Qwen2's fixed q/k/v biases.
const llama = ModelConfig.parse({
  ...SHAPE,
  architecture: 'LlamaForCausalLM',
  headDim: 6,
  attentionBias: true,
  mlpBias: true,
  tieEmbeddings: false,
  valueHead: true,
});
const qwen3 = ModelConfig.parse({ ...SHAPE, architecture: 'Qwen3ForCausalLM', headDim: 4, attentionBias: true });
const qwen2 = ModelConfig.parse({ ...SHAPE, architecture: 'Qwen2ForCausalLM' });
const cfg = llama;
const PAIRS = [
  { prompt: [1, 2, 3], response: [4, 5] },
  { prompt: [6], response: [7, 8, 9] },
];

beforeAll(ensureTensorBackend);

/** Sum of the response log-probs (and values, with a value head; mask applied) as a traced function of the parameters. */
function objective(c: ModelConfig, params: Params): Tensor {
  const block = packPairs(PAIRS, 2, 4, 3, 0);
  const [prompt, response, positions, keyMask] = blockTensors(block);
  const states = responseStates(c, params, prompt, response.ref, positions, keyMask);
  let perToken = pickTokens(distributionsAt(c, params, states.ref), response);
  perToken = c.valueHead ? perToken.add(valuesAt(c, params, states)) : (states.dispose(), perToken);
  tree.dispose(params);
  return np.sum(perToken.mul(np.array(block.responseMask).reshape([2, 3])));
}

/** Autodiff against central finite differences at a few entries of every parameter of `c`. */
function checkGradients(c: ModelConfig): void {
  const host = initHostParams(c, 11);
  // Larger weights than the init and non-zero biases, so every path carries
  // signal; norm gains near 1 (at 3, q/k norms saturate Qwen3's softmax and
  // finite differences lose accuracy).
  for (const [name, t] of Object.entries(host)) {
    const gain = name.endsWith('norm.weight');
    for (let i = 0; i < t.data.length; i++) t.data[i] = gain ? 1 + (i % 3) * 0.05 : t.data[i]! * 3 + (i % 3) * 0.01;
  }
  const compiled = jit((p: Params) => objective(c, p));
  const lossAt = (h: HostParams): number => Number(compiled(toDevice(h)).dataSync()[0]);
  const [value, grads] = valueAndGrad((p: Params) => objective(c, p))(toDevice(host));
  expect(Number(value.dataSync()[0])).toBeCloseTo(lossAt(host), 4);
  const analytic = Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, g.dataSync()]));
  const eps = 1e-2;
  // Central differences at eps and eps/2, extrapolated (Richardson): the
  // O(eps^2) term cancels, which the curvature of q/k norms and saturated
  // softmaxes needs at float32's resolution.
  const central = (data: Float32Array, i: number, h: number): number => {
    const saved = data[i]!;
    data[i] = saved + h;
    const up = lossAt(host);
    data[i] = saved - h;
    const down = lossAt(host);
    data[i] = saved;
    return (up - down) / (2 * h);
  };
  for (const [name, t] of Object.entries(host)) {
    // Two entries per tensor, at spots that vary with the name.
    const at = (7 * name.length) % t.data.length;
    for (const i of new Set([at, (at + (t.data.length >> 1)) % t.data.length])) {
      const numeric = (4 * central(t.data, i, eps / 2) - central(t.data, i, eps)) / 3;
      const g = analytic[name]![i]!;
      expect(Math.abs(g - numeric), `${name}[${i}]: autodiff ${g}, numeric ${numeric}`).toBeLessThan(2e-3 + 0.01 * Math.abs(numeric));
    }
  }
  compiled.dispose();
}

describe('transformer', () => {
  it('initialises deterministically from the seed: N(0, 0.02) weights, zero biases, unit norm gains', () => {
    const a = initHostParams(cfg, 7);
    expect(initHostParams(cfg, 7)).toEqual(a);
    expect(initHostParams(cfg, 8)['model.embed_tokens.weight']!.data).not.toEqual(a['model.embed_tokens.weight']!.data);
    expect(Object.keys(a)).toContain('lm_head.weight');
    expect(Array.from(a['model.norm.weight']!.data)).toEqual(new Array(8).fill(1));
    expect(Array.from(a['model.layers.1.mlp.down_proj.bias']!.data)).toEqual(new Array(8).fill(0));
    expect(Array.from(a['score.bias']!.data)).toEqual([0]);
    expect(a['model.layers.0.self_attn.k_proj.weight']!.shape).toEqual([12, 8]);
    expect(a['model.layers.0.self_attn.o_proj.weight']!.shape).toEqual([8, 24]);
  });

  it('gradients from autodiff match central finite differences: Llama with every bias, GQA, untied head and a value head', () => {
    checkGradients(llama);
  });

  it('gradients from autodiff match central finite differences: Qwen3 q/k norms and attention biases', () => {
    checkGradients(qwen3);
    expect(Object.keys(initHostParams(qwen3, 1))).toContain('model.layers.1.self_attn.k_norm.weight');
  });

  it('gradients from autodiff match central finite differences: Qwen2 q/k/v biases', () => {
    checkGradients(qwen2);
    expect(Object.keys(initHostParams(qwen2, 1)).filter((n) => n.endsWith('.bias'))).toEqual(
      [0, 1].flatMap((i) => ['q', 'k', 'v'].map((x) => `model.layers.${i}.self_attn.${x}_proj.bias`)),
    );
  });

  it('padding does not change the scores: the same pair scores equally at any padded width', () => {
    const params = toDevice(initHostParams(cfg, 5));
    const score = (promptWidth: number, responseWidth: number): number[] => {
      const block = packPairs([PAIRS[0]!], 1, promptWidth, responseWidth, 0);
      const [prompt, response, positions, keyMask] = blockTensors(block);
      const lp = pickTokens(distributionsAt(cfg, tree.ref(params), responseStates(cfg, tree.ref(params), prompt, response.ref, positions, keyMask)), response);
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
