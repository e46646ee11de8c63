import type { InferenceSession } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit';
import { describeModelIo } from './onnx-io.ts';

type Meta = InferenceSession.ValueMetadata;
const tensor = (name: string, type: 'int64' | 'int32' | 'float32', shape: Array<number | string>): Meta => ({ name, isTensor: true, type, shape });
const ids = ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => tensor(n, 'int64', ['batch', 'seq']));

describe('describeModelIo', () => {
  it('feeds the BERT inputs a graph declares and prefers the pooled output of a sentence-transformers export', () => {
    const io = describeModelIo({
      inputMetadata: ids,
      outputMetadata: [tensor('token_embeddings', 'float32', ['b', 's', 384]), tensor('sentence_embedding', 'float32', ['b', 384])],
    });
    expect(io.inputs.map((i) => i.name)).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    expect(io.output).toEqual({ name: 'sentence_embedding', kind: 'pooled' });
  });

  it('reads last_hidden_state of an optimum feature-extraction export as token states', () => {
    const io = describeModelIo({ inputMetadata: ids.slice(0, 2), outputMetadata: [tensor('last_hidden_state', 'float32', ['b', 's', 384])] });
    expect(io.output).toEqual({ name: 'last_hidden_state', kind: 'tokens' });
  });

  it('tells a lone unnamed output apart by its rank', () => {
    const tokens = describeModelIo({ inputMetadata: ids.slice(0, 1), outputMetadata: [tensor('out', 'float32', ['b', 's', 8])] });
    const pooled = describeModelIo({ inputMetadata: ids.slice(0, 1), outputMetadata: [tensor('out', 'float32', ['b', 8])] });
    expect(tokens.output.kind).toBe('tokens');
    expect(pooled.output.kind).toBe('pooled');
  });

  it.each([
    ['an unknown input', [...ids, tensor('position_ids', 'int64', ['b', 's'])], [tensor('last_hidden_state', 'float32', ['b', 's', 4])]],
    ['float ids', [tensor('input_ids', 'float32', ['b', 's'])], [tensor('last_hidden_state', 'float32', ['b', 's', 4])]],
    ['no input_ids', [tensor('attention_mask', 'int64', ['b', 's'])], [tensor('last_hidden_state', 'float32', ['b', 's', 4])]],
    ['no usable output', ids, [tensor('logits', 'float32', ['b', 2]), tensor('other', 'float32', ['b', 2])]],
  ])('rejects %s as unavailable', (_, inputMetadata, outputMetadata) => {
    expect(() => describeModelIo({ inputMetadata, outputMetadata })).toThrow(expect.objectContaining({ code: ErrorCode.Unavailable }));
  });
});
