import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBertTokenizerJson } from '../../../tools/model-build/bert-tokenizer-json.ts';
import { encodeOnnxModel, OnnxDataType, type OnnxModelSpec } from '../../../tools/model-build/onnx-model.ts';

/**
 * A hand-checkable model for tests: 7 tokens, dim 3, the graph a plain
 * embedding lookup, so expected sentence vectors can be worked out on paper.
 */

/** Token ids are the indices. */
export const TINY_VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'cat', 'dog', 'sat'] as const;

/**
 * One row per token. [PAD]'s row is huge on purpose: if padding ever leaked
 * into pooling, every padded vector would swing towards (1,1,1).
 */
export const TINY_TABLE: ReadonlyArray<readonly [number, number, number]> = [
  [100, 100, 100], // [PAD]
  [0, 0, 1], // [UNK]
  [1, 0, 0], // [CLS]
  [0, 1, 0], // [SEP]
  [2, 0, 0], // cat
  [0, 2, 0], // dog
  [0, 0, 4], // sat
];

/**
 * - `tokens`: `last_hidden_state` [batch, seq, 3] from int64 `input_ids`,
 *   `attention_mask`, `token_type_ids` (a BERT export's inputs; the last two
 *   unused, so pooling alone must keep padding out).
 * - `pooled`: `sentence_embedding` [batch, 3] = the plain mean over all positions,
 *   from int32 `input_ids` only.
 */
export type TinyVariant = 'tokens' | 'pooled';

function tinyGraph(variant: TinyVariant): OnnxModelSpec {
  const table = { name: 'table', dims: [TINY_TABLE.length, 3], type: OnnxDataType.Float, data: Float32Array.from(TINY_TABLE.flat()) } as const;
  const common = { graphName: `tiny-${variant}`, producerName: 'reward-story tests', docString: 'test fixture', initializers: [table] };
  if (variant === 'tokens') {
    return {
      ...common,
      nodes: [{ opType: 'Gather', inputs: ['table', 'input_ids'], outputs: ['last_hidden_state'], attributes: [{ name: 'axis', int: 0 }] }],
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({ name, type: OnnxDataType.Int64, shape: ['batch', 'seq'] })),
      outputs: [{ name: 'last_hidden_state', type: OnnxDataType.Float, shape: ['batch', 'seq', 3] }],
    };
  }
  return {
    ...common,
    nodes: [
      { opType: 'Gather', inputs: ['table', 'input_ids'], outputs: ['states'], attributes: [{ name: 'axis', int: 0 }] },
      {
        opType: 'ReduceMean',
        inputs: ['states'],
        outputs: ['sentence_embedding'],
        attributes: [
          { name: 'axes', ints: [1] },
          { name: 'keepdims', int: 0 },
        ],
      },
    ],
    inputs: [{ name: 'input_ids', type: OnnxDataType.Int32, shape: ['batch', 'seq'] }],
    outputs: [{ name: 'sentence_embedding', type: OnnxDataType.Float, shape: ['batch', 3] }],
  };
}

/** Writes `model.onnx` + `tokenizer.json` (+ `sentence_bert_config.json` when `maxSeqLength` is given). */
export async function writeTinyModel(dir: string, variant: TinyVariant, maxSeqLength?: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'model.onnx'), encodeOnnxModel(tinyGraph(variant)));
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(buildBertTokenizerJson(TINY_VOCAB, 128)));
  if (maxSeqLength !== undefined) {
    await writeFile(join(dir, 'sentence_bert_config.json'), JSON.stringify({ max_seq_length: maxSeqLength, do_lower_case: false }));
  }
}
