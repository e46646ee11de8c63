import { createRng, type Rng } from '@rl/service-kit';
import { OnnxDataType, type OnnxModelSpec, type OnnxNode } from '../model-build/onnx-model.ts';
import type { DefaultVocabulary } from './vocabulary.ts';

/**
 * The default model's ONNX graph: each token's vector is a weighted sum of
 * random concept vectors, plus hashed bigram features, emitted per token as
 * `last_hidden_state` so pooling and normalisation happen in our code exactly
 * as for a transformer export.
 *
 *   r(c)   = A[c mod P] ⊙ B[c div P]                  ±1 entries, dim D: concept c's vector
 *   u(t)   = mask(t) · Σ_k w(t, k) · r(c(t, k))        K concept slots per token
 *   h(t)   = u(t) + β · u(t−1) ⊙ π(u(t))               π: a fixed permutation of dims
 *
 * The two small tables give every concept its own ±1 vector (distinct concepts
 * differ in A's row or B's row, so their vectors are near-orthogonal, cosine
 * ~ N(0, 1/D)) at a fraction of a full [concepts × D] table's size. Two tokens
 * are similar exactly as far as their slots share concepts. The bigram term is
 * a product, so under mean pooling it adds an order-sensitive feature ("dog
 * bites man" ≠ "man bites dog") that a linear mix of neighbours could not.
 */

/** Shape parameters of the graph. */
export interface GraphParams {
  /** Vector length D. */
  dim: number;
  /** Rows P of table A; table B gets ⌈concepts / P⌉ rows. */
  tableRows: number;
  /** β, the bigram term's scale. */
  bigramWeight: number;
  /** Seed of the random tables and the permutation. */
  seed: number;
}

/** Slot weights are stored as int16 in units of 1/WEIGHT_SCALE: exact to 3e-5, half float32's size. */
export const WEIGHT_SCALE = 32_767;

function signTable(rng: Rng, rows: number, dim: number): Int8Array {
  return Int8Array.from({ length: rows * dim }, () => (rng.next() < 0.5 ? -1 : 1));
}

function permutation(rng: Rng, n: number): BigInt64Array {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return BigInt64Array.from(p, (x) => BigInt(x));
}

const node = (opType: string, inputs: string[], outputs: string[], attributes: OnnxNode['attributes'] = []): OnnxNode => ({
  opType,
  inputs,
  outputs,
  attributes,
});

/** The graph for a vocabulary; everything random comes from `params.seed`. */
export function buildDefaultGraph(vocab: DefaultVocabulary, params: GraphParams, metadata: ReadonlyArray<readonly [string, string]>): OnnxModelSpec {
  const { dim, tableRows, bigramWeight, seed } = params;
  const rng = createRng(seed);
  const rowsB = Math.ceil(vocab.conceptCount / tableRows);
  const tableA = signTable(rng, tableRows, dim);
  const tableB = signTable(rng, rowsB, dim);
  const perm = permutation(rng, dim);
  const V = vocab.tokens.length;
  const K = vocab.slots;
  const weights = Int16Array.from(vocab.conceptWeights, (w) => Math.round(w * WEIGHT_SCALE));
  const scalarI64 = (name: string, v: number) => ({ name, dims: [], type: OnnxDataType.Int64, data: BigInt64Array.of(BigInt(v)) }) as const;
  const scalarF = (name: string, v: number) => ({ name, dims: [], type: OnnxDataType.Float, data: Float32Array.of(v) }) as const;
  const ints = (name: string, v: number[]) => ({ name, dims: [v.length], type: OnnxDataType.Int64, data: BigInt64Array.from(v, (x) => BigInt(x)) }) as const;

  return {
    graphName: 'concept_bag_random_projection',
    producerName: 'reward-story build-default-model',
    docString: 'Weighted bag of random concept vectors (lexemes, WordNet synsets, CC-CEDICT glosses) with hashed bigrams; see models/default/README.md.',
    opsetVersion: 17,
    irVersion: 8,
    initializers: [
      { name: 'concepts_of_token', dims: [V, K], type: OnnxDataType.Int32, data: vocab.conceptIds },
      { name: 'weights_of_token', dims: [V, K], type: OnnxDataType.Int16, data: weights },
      // ±1 entries: int8 in the file, a quarter of float32's size.
      { name: 'table_a', dims: [tableRows, dim], type: OnnxDataType.Int8, data: tableA },
      { name: 'table_b', dims: [rowsB, dim], type: OnnxDataType.Int8, data: tableB },
      { name: 'bigram_permutation', dims: [dim], type: OnnxDataType.Int64, data: perm },
      scalarF('bigram_weight', bigramWeight),
      scalarF('weight_unit', 1 / WEIGHT_SCALE),
      scalarI64('table_rows', tableRows),
      ints('last_axis', [-1]),
      ints('slot_axis', [2]),
      ints('shift_pads', [0, 1, 0, 0, 0, 0]),
      ints('slice_starts', [0]),
      ints('slice_ends', [-1]),
      ints('seq_axis', [1]),
    ],
    nodes: [
      // Concept vectors of every slot: [batch, seq, K, D].
      node('Gather', ['concepts_of_token', 'input_ids'], ['concept_i32'], [{ name: 'axis', int: 0 }]),
      node('Cast', ['concept_i32'], ['concept'], [{ name: 'to', int: OnnxDataType.Int64 }]),
      node('Mod', ['concept', 'table_rows'], ['row_a']),
      node('Div', ['concept', 'table_rows'], ['row_b']),
      node('Gather', ['table_a', 'row_a'], ['vec_a_i8'], [{ name: 'axis', int: 0 }]),
      node('Gather', ['table_b', 'row_b'], ['vec_b_i8'], [{ name: 'axis', int: 0 }]),
      node('Cast', ['vec_a_i8'], ['vec_a'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Cast', ['vec_b_i8'], ['vec_b'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Mul', ['vec_a', 'vec_b'], ['concept_vec']),
      // Slot weights, masked: [batch, seq, 1, K].
      node('Gather', ['weights_of_token', 'input_ids'], ['weight_i16'], [{ name: 'axis', int: 0 }]),
      node('Cast', ['weight_i16'], ['weight_units'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Mul', ['weight_units', 'weight_unit'], ['weight']),
      node('Cast', ['attention_mask'], ['mask'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Unsqueeze', ['mask', 'last_axis'], ['mask_3d']),
      node('Mul', ['weight', 'mask_3d'], ['masked_weight']),
      node('Unsqueeze', ['masked_weight', 'slot_axis'], ['masked_weight_4d']),
      // Σ_k w(t, k) · r(c(t, k)) as a batched [1, K] × [K, D] product.
      node('MatMul', ['masked_weight_4d', 'concept_vec'], ['unigram_4d']),
      node('Squeeze', ['unigram_4d', 'slot_axis'], ['unigram']),
      // u(t−1): shift right along the sequence by one, a zero row entering at t = 0.
      node('Pad', ['unigram', 'shift_pads'], ['unigram_padded']),
      node('Slice', ['unigram_padded', 'slice_starts', 'slice_ends', 'seq_axis'], ['previous']),
      node('Gather', ['unigram', 'bigram_permutation'], ['permuted'], [{ name: 'axis', int: 2 }]),
      node('Mul', ['previous', 'permuted'], ['bigram']),
      node('Mul', ['bigram', 'bigram_weight'], ['bigram_scaled']),
      node('Add', ['unigram', 'bigram_scaled'], ['last_hidden_state']),
    ],
    inputs: [
      { name: 'input_ids', type: OnnxDataType.Int64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: OnnxDataType.Int64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'last_hidden_state', type: OnnxDataType.Float, shape: ['batch', 'sequence', dim] }],
    metadata,
  };
}
