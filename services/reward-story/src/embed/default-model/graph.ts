import { createRng, type Rng } from '@rl/shared';
import { OnnxDataType, type OnnxModelSpec, type OnnxNode } from '../model-build/onnx-model.ts';
import type { DefaultVocabulary } from './vocabulary.ts';

/**
 * The default model's ONNX graph: a bag of weighted random word vectors plus
 * hashed bigram features, emitted per token as `last_hidden_state` so pooling
 * and normalisation happen in our code exactly as for a transformer export.
 *
 *   v(t)   = A[lex(t) mod P] ⊙ B[lex(t) div P]        ±1 entries, dim D
 *   u(t)   = weight(t) · mask(t) · v(t)                unigram state
 *   h(t)   = u(t) + β · u(t−1) ⊙ π(u(t))               π: a fixed permutation of dims
 *
 * The two small tables give every lexeme its own ±1 vector (distinct lexemes
 * differ in A's row or B's row, so their vectors are near-orthogonal, cosine
 * ~ N(0, 1/D)) at a fraction of a full [lexemes × D] table's size. The bigram
 * term is a product, so under mean pooling it adds an order-sensitive feature
 * ("dog bites man" ≠ "man bites dog") that a linear mix of neighbours could not.
 */

/** Shape parameters of the graph. */
export interface GraphParams {
  /** Vector length D. */
  dim: number;
  /** Rows P of table A; table B gets ⌈lexemes / P⌉ rows. */
  tableRows: number;
  /** β, the bigram term's scale. */
  bigramWeight: number;
  /** Seed of the random tables and the permutation. */
  seed: number;
}

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
  const rowsB = Math.ceil(vocab.lexemeCount / tableRows);
  const tableA = signTable(rng, tableRows, dim);
  const tableB = signTable(rng, rowsB, dim);
  const perm = permutation(rng, dim);
  const V = vocab.tokens.length;
  const scalarI64 = (name: string, v: number) => ({ name, dims: [], type: OnnxDataType.Int64, data: BigInt64Array.of(BigInt(v)) }) as const;
  const ints = (name: string, v: number[]) => ({ name, dims: [v.length], type: OnnxDataType.Int64, data: BigInt64Array.from(v, (x) => BigInt(x)) }) as const;

  return {
    graphName: 'bag_of_words_random_projection',
    producerName: 'reward-story build-default-model',
    docString: 'Weighted bag of random word vectors with hashed bigrams; see models/default/README.md.',
    opsetVersion: 17,
    irVersion: 8,
    initializers: [
      { name: 'lexeme_of_token', dims: [V], type: OnnxDataType.Int32, data: vocab.lexemes },
      { name: 'weight_of_token', dims: [V], type: OnnxDataType.Float, data: vocab.weights },
      // ±1 entries: int8 in the file, a quarter of float32's size.
      { name: 'table_a', dims: [tableRows, dim], type: OnnxDataType.Int8, data: tableA },
      { name: 'table_b', dims: [rowsB, dim], type: OnnxDataType.Int8, data: tableB },
      { name: 'bigram_permutation', dims: [dim], type: OnnxDataType.Int64, data: perm },
      { name: 'bigram_weight', dims: [], type: OnnxDataType.Float, data: Float32Array.of(bigramWeight) },
      scalarI64('table_rows', tableRows),
      ints('last_axis', [2]),
      ints('shift_pads', [0, 1, 0, 0, 0, 0]),
      ints('slice_starts', [0]),
      ints('slice_ends', [-1]),
      ints('seq_axis', [1]),
    ],
    nodes: [
      node('Gather', ['lexeme_of_token', 'input_ids'], ['lexeme_i32'], [{ name: 'axis', int: 0 }]),
      node('Cast', ['lexeme_i32'], ['lexeme'], [{ name: 'to', int: OnnxDataType.Int64 }]),
      node('Mod', ['lexeme', 'table_rows'], ['row_a']),
      node('Div', ['lexeme', 'table_rows'], ['row_b']),
      node('Gather', ['table_a', 'row_a'], ['vec_a_i8'], [{ name: 'axis', int: 0 }]),
      node('Gather', ['table_b', 'row_b'], ['vec_b_i8'], [{ name: 'axis', int: 0 }]),
      node('Cast', ['vec_a_i8'], ['vec_a'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Cast', ['vec_b_i8'], ['vec_b'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Mul', ['vec_a', 'vec_b'], ['word_vec']),
      node('Gather', ['weight_of_token', 'input_ids'], ['weight'], [{ name: 'axis', int: 0 }]),
      node('Cast', ['attention_mask'], ['mask'], [{ name: 'to', int: OnnxDataType.Float }]),
      node('Mul', ['weight', 'mask'], ['masked_weight']),
      node('Unsqueeze', ['masked_weight', 'last_axis'], ['masked_weight_3d']),
      node('Mul', ['word_vec', 'masked_weight_3d'], ['unigram']),
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
