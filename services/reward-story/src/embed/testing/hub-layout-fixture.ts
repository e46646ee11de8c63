import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBertTokenizerJson } from '../../../tools/model-build/bert-tokenizer-json.ts';
import { encodeOnnxModel, OnnxDataType } from '../../../tools/model-build/onnx-model.ts';

/**
 * A stand-in for sentence-transformers/all-MiniLM-L6-v2 as its Hub repository
 * lays it out (no real weights can be fetched here): `onnx/model.onnx` with
 * BERT's three int64 inputs and `last_hidden_state`, a root `tokenizer.json`
 * with bert-base-uncased's special ids ([PAD] 0, [UNK] 100, [CLS] 101,
 * [SEP] 102, [MASK] 103) and its own truncation (128) and fixed padding, and
 * `sentence_bert_config.json` saying 256, which must win.
 */

/** Words after the special ids; `WORD_BASE + i` is `HUB_WORDS[i]`. */
export const HUB_WORDS = ['the', 'cat', 'sat', 'on', 'mat', 'dog', 'ran'] as const;
export const HUB_WORD_BASE = 104;

/** Row of the lookup table for token id `id`; [PAD]'s row is huge so leaks would show. */
export function hubRow(id: number): [number, number, number, number] {
  return id === 0 ? [1000, 1000, 1000, 1000] : [(id % 7) + 1, (id * 3) % 5, 1, id % 2];
}

/** Writes the fixture directory. */
export async function writeHubLayoutModel(dir: string): Promise<void> {
  const vocab = Array.from({ length: HUB_WORD_BASE }, (_, i) => `[unused${i}]`);
  [vocab[0], vocab[100], vocab[101], vocab[102], vocab[103]] = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  vocab.push(...HUB_WORDS);
  const tokenizer = {
    ...buildBertTokenizerJson(vocab, 128),
    padding: { strategy: { Fixed: 128 }, direction: 'Right', pad_to_multiple_of: null, pad_id: 0, pad_type_id: 0, pad_token: '[PAD]' },
  };
  const table = Float32Array.from(vocab.flatMap((_, id) => hubRow(id)));
  const model = encodeOnnxModel({
    graphName: 'main_graph',
    producerName: 'reward-story tests',
    docString: 'all-MiniLM-L6-v2 layout stand-in',
    nodes: [{ opType: 'Gather', inputs: ['table', 'input_ids'], outputs: ['last_hidden_state'], attributes: [{ name: 'axis', int: 0 }] }],
    initializers: [{ name: 'table', dims: [vocab.length, 4], type: OnnxDataType.Float, data: table }],
    inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({ name, type: OnnxDataType.Int64, shape: ['batch_size', 'sequence_length'] })),
    outputs: [{ name: 'last_hidden_state', type: OnnxDataType.Float, shape: ['batch_size', 'sequence_length', 4] }],
  });
  await mkdir(join(dir, 'onnx'), { recursive: true });
  await mkdir(join(dir, '1_Pooling'), { recursive: true });
  const json = (name: string, value: unknown) => writeFile(join(dir, name), JSON.stringify(value, null, 2));
  await writeFile(join(dir, 'onnx', 'model.onnx'), model);
  await json('tokenizer.json', tokenizer);
  await json('tokenizer_config.json', { do_lower_case: true, model_max_length: 512, tokenizer_class: 'BertTokenizer', unk_token: '[UNK]' });
  await json('sentence_bert_config.json', { max_seq_length: 256, do_lower_case: false });
  await json('modules.json', [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ]);
  await json(join('1_Pooling', 'config.json'), { word_embedding_dimension: 4, pooling_mode_mean_tokens: true });
}
