// The engine against hf_forward.py, a numpy forward pass written from
// transformers' model definitions: for small random models of every feature,
// our logits (full pass and KV-cached decoding), teacher-forced log-probs over
// padded batches and value-head outputs match the reference's, computed on each
// sequence alone and unpadded.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng } from '@rl/service-kit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockTensors } from '../../generation/score.ts';
import { leftPad, packPairs } from '../../training/batch-layout.ts';
import { encodeSafetensors } from '../../weights/safetensors.ts';
import { ensureTensorBackend, np, tree, type Tensor } from '../backend.ts';
import { createKernels, distributionsAt, pickTokens, responseStates, valuesAt } from '../kernels.ts';
import { type ModelConfig, type ModelConfigInput, parseModelConfig } from '../model-config.ts';
import { gaussian, paramShapes, toDevice, type HostParams, type Params } from '../params.ts';
import { forwardSequence, head } from '../transformer.ts';

const REFERENCE = join(dirname(fileURLToPath(import.meta.url)), 'hf_forward.py');
const TOLERANCE = 1e-4;

const BASE = { vocabSize: 37, dModel: 16, nLayers: 2, nHeads: 4, dFF: 24, maxSeqLen: 64 };
const CASES: Array<[feature: string, config: Partial<ModelConfigInput>]> = [
  ['Llama, attention and MLP biases, untied head', { architecture: 'LlamaForCausalLM', attentionBias: true, mlpBias: true, tieEmbeddings: false }],
  ['Llama, grouped-query attention 4q/2kv', { architecture: 'LlamaForCausalLM', nKvHeads: 2 }],
  ['Llama, headDim 6 != dModel / nHeads, 4q/1kv', { architecture: 'LlamaForCausalLM', headDim: 6, nKvHeads: 1, tieEmbeddings: false }],
  ['Llama, rope linear (factor 4, theta 500)', { architecture: 'LlamaForCausalLM', ropeTheta: 500, ropeScaling: { type: 'linear', factor: 4 } }],
  [
    'Llama, rope llama3 (every band: kept, blended, divided)',
    {
      architecture: 'LlamaForCausalLM',
      headDim: 8,
      nHeads: 2,
      ropeScaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 1024 },
    },
  ],
  ['Qwen2, q/k/v biases', { architecture: 'Qwen2ForCausalLM', nKvHeads: 2 }],
  ['Qwen3, q/k norms, attention biases, 4q/2kv, headDim 8', { architecture: 'Qwen3ForCausalLM', nKvHeads: 2, headDim: 8, attentionBias: true, normEps: 1e-5 }],
  ['Qwen3 value head (score Linear with bias)', { architecture: 'Qwen3ForCausalLM', nKvHeads: 2, valueHead: true }],
];

/** Two sequences of different lengths, split into prompt and response. */
const PAIRS = [
  { prompt: [3, 14, 15, 9, 26], response: [5, 35, 8, 9] },
  { prompt: [27, 1, 8], response: [2, 8, 18, 28, 1, 8] },
];

/** Random weights big enough that every path matters: Linear N(0, 1/in), biases N(0, 0.1²), norm gains 1 + N(0, 0.2²). */
function randomParams(cfg: ModelConfig, seed: number): HostParams {
  const rng = createRng(seed);
  const out: HostParams = {};
  for (const [name, shape] of paramShapes(cfg)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const scale = name.endsWith('.bias') ? 0.1 : name.endsWith('norm.weight') ? 0.2 : name === 'model.embed_tokens.weight' ? 1 : 1 / Math.sqrt(shape[1] ?? 1);
    const offset = name.endsWith('norm.weight') ? 1 : 0;
    out[name] = { shape, data: Float32Array.from({ length: size }, () => offset + scale * gaussian(rng)) };
  }
  return out;
}

/** The config.json keys transformers reads (written here, apart from hf-config.ts, so the reference is independent). */
function hfConfig(cfg: ModelConfig): Record<string, unknown> {
  const rs = cfg.ropeScaling;
  return {
    architectures: [cfg.architecture],
    vocab_size: cfg.vocabSize,
    hidden_size: cfg.dModel,
    intermediate_size: cfg.dFF,
    num_hidden_layers: cfg.nLayers,
    num_attention_heads: cfg.nHeads,
    num_key_value_heads: cfg.nKvHeads,
    head_dim: cfg.headDim,
    max_position_embeddings: cfg.maxSeqLen,
    rope_theta: cfg.ropeTheta,
    rope_scaling:
      rs === null
        ? null
        : rs.type === 'linear'
          ? { rope_type: 'linear', factor: rs.factor }
          : {
              rope_type: 'llama3',
              factor: rs.factor,
              low_freq_factor: rs.lowFreqFactor,
              high_freq_factor: rs.highFreqFactor,
              original_max_position_embeddings: rs.originalMaxPositionEmbeddings,
            },
    rms_norm_eps: cfg.normEps,
    tie_word_embeddings: cfg.tieEmbeddings,
    attention_bias: cfg.attentionBias,
    mlp_bias: cfg.mlpBias,
  };
}

interface Reference {
  logits: number[][][];
  values: number[][] | null;
}

let dir = '';

function runReference(cfg: ModelConfig, host: HostParams): Reference {
  const weights = join(dir, 'model.safetensors');
  const request = join(dir, 'request.json');
  writeFileSync(weights, encodeSafetensors(host, {}));
  writeFileSync(request, JSON.stringify({ config: hfConfig(cfg), sequences: PAIRS.map((p) => [...p.prompt, ...p.response]) }));
  return JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE, weights, request], { encoding: 'utf8', timeout: 60_000 })) as Reference;
}

function logSoftmax(row: readonly number[]): number[] {
  const max = Math.max(...row);
  const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
  return row.map((x) => x - lse);
}

/** Largest |a - b| over two equally long lists. */
function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}

/** Full-sequence logits of each sequence run alone, `[T * V]` flattened. */
function fullLogits(cfg: ModelConfig, params: Params, ids: readonly number[]): Float32Array {
  const t = ids.length;
  const row = (a: Float32Array<ArrayBuffer>) => np.array(a).reshape([1, t]);
  const { hidden } = forwardSequence(
    cfg,
    tree.ref(params),
    np.array(Int32Array.from(ids)).reshape([1, t]),
    row(Float32Array.from(ids, (_, i) => i)),
    row(new Float32Array(t).fill(1)),
    false,
  );
  return head(cfg, tree.ref(params), hidden).dataSync() as Float32Array;
}

/** Teacher-forced response log-probs and (with a value head) values over a padded batch, per pair. */
function teacherForced(cfg: ModelConfig, params: Params): { logprobs: number[][]; values: number[][] | null } {
  // Wider than needed and an extra row: padding must change nothing.
  const block = packPairs(PAIRS, 3, 8, 8, 0);
  const [prompt, response, positions, keyMask] = blockTensors(block);
  const states = responseStates(cfg, tree.ref(params), prompt, response.ref, positions, keyMask);
  const values = cfg.valueHead ? (valuesAt(cfg, tree.ref(params), states.ref).dataSync() as Float32Array) : null;
  const lp = pickTokens(distributionsAt(cfg, tree.ref(params), states), response).dataSync() as Float32Array;
  const rows = (data: Float32Array) => PAIRS.map((p, r) => Array.from(data.subarray(r * 8, r * 8 + p.response.length)));
  return { logprobs: rows(lp), values: values === null ? null : rows(values) };
}

/**
 * KV-cached decoding fed the response tokens: the logits after the prompt and
 * after each response token but the last, per pair (`[steps][V]`), as the
 * generation loop drives prefill and decode (left-padded prompts, one column per step).
 */
function cachedLogits(cfg: ModelConfig, params: Params): number[][][] {
  const rows = 2;
  const width = 8;
  const capacity = 16;
  const kernels = createKernels(cfg);
  const prompts = leftPad(
    PAIRS.map((p) => p.prompt),
    rows,
    width,
    0,
  );
  const shaped = (a: Int32Array<ArrayBuffer> | Float32Array<ArrayBuffer>) => np.array(a).reshape([rows, width]);
  const keyMask = new Float32Array(rows * capacity);
  for (let r = 0; r < rows; r++) keyMask.set(prompts.keyMask.subarray(r * width, (r + 1) * width), r * capacity);
  const first = kernels.prefill(tree.ref(params), shaped(prompts.ids), shaped(prompts.positions), shaped(prompts.keyMask), capacity);
  const out: number[][][] = PAIRS.map(() => []);
  const take = (logits: Tensor) => {
    const data = logits.dataSync() as Float32Array;
    PAIRS.forEach((_, r) => out[r]!.push(Array.from(data.subarray(r * cfg.vocabSize, (r + 1) * cfg.vocabSize))));
  };
  take(first.logits);
  let cache = first.cache;
  const steps = Math.max(...PAIRS.map((p) => p.response.length)) - 1;
  for (let step = 0; step < steps; step++) {
    const column = width + step;
    for (let r = 0; r < rows; r++) keyMask[r * capacity + column] = 1;
    const onehot = new Float32Array(capacity);
    onehot[column] = 1;
    const next = kernels.decode(
      tree.ref(params),
      cache,
      np.array(Int32Array.from(PAIRS, (p) => p.response[step] ?? 0)),
      np.array(Float32Array.from(PAIRS, (p) => p.prompt.length + step)),
      np.array(keyMask.slice()).reshape([rows, capacity]),
      np.array(onehot),
    );
    take(next.logits);
    cache = next.cache;
  }
  tree.dispose(cache);
  kernels.release();
  return out;
}

beforeAll(async () => {
  await ensureTensorBackend();
  dir = mkdtempSync(join(tmpdir(), 'hf-forward-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the engine computes what transformers defines (numpy reference)', () => {
  for (const [feature, overrides] of CASES) {
    it(feature, () => {
      const cfg = parseModelConfig({ ...BASE, ...overrides });
      const host = randomParams(cfg, 2026);
      const ref = runReference(cfg, host);
      const params = toDevice(host);
      const diffs: Record<string, number> = {};

      diffs.logits = Math.max(...PAIRS.map((p, r) => maxDiff(fullLogits(cfg, params, [...p.prompt, ...p.response]), ref.logits[r]!.flat())));

      const tf = teacherForced(cfg, params);
      const refLogprobs = PAIRS.map((p, r) => p.response.map((tok, j) => logSoftmax(ref.logits[r]![p.prompt.length - 1 + j]!)[tok]!));
      diffs.logprobs = Math.max(...PAIRS.map((_, r) => maxDiff(tf.logprobs[r]!, refLogprobs[r]!)));

      const cached = cachedLogits(cfg, params);
      diffs.decode = Math.max(
        ...PAIRS.map((p, r) =>
          maxDiff(
            cached[r]!.slice(0, p.response.length).flat(),
            p.response.flatMap((_, j) => ref.logits[r]![p.prompt.length - 1 + j]!),
          ),
        ),
      );

      if (cfg.valueHead) {
        expect(ref.values).not.toBeNull();
        const refValues = PAIRS.map((p, r) => p.response.map((_, j) => ref.values![r]![p.prompt.length - 1 + j]!));
        diffs.values = Math.max(...PAIRS.map((_, r) => maxDiff(tf.values![r]!, refValues[r]!)));
      }
      tree.dispose(params);
      // The figures are the evidence of agreement; printed so a run shows them.
      console.log(`${feature}: max |ours - reference| ${JSON.stringify(diffs)}`);
      for (const [what, diff] of Object.entries(diffs)) expect(diff, `${feature}: ${what}`).toBeLessThan(TOLERANCE);
      // A reference that returned nothing would make every diff 0: the logits carry signal.
      expect(Math.max(...ref.logits[0]![0]!) - Math.min(...ref.logits[0]![0]!)).toBeGreaterThan(1);
    });
  }
});
