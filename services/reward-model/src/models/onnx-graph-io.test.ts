import { describe, expect, it } from 'vitest';
import { describeRewardGraph, type ValueMetadata } from './onnx-graph-io.ts';

const tensor = (name: string, type: string, shape: Array<number | string>): ValueMetadata => ({ name, isTensor: true, type, shape });
const ids = tensor('input_ids', 'int64', ['batch_size', 'sequence_length']);
const mask = tensor('attention_mask', 'int64', ['batch_size', 'sequence_length']);
const perToken = tensor('logits', 'float32', ['batch_size', 'sequence_length', 1]);
const pooled = tensor('logits', 'float32', ['batch_size', 1]);

describe('describeRewardGraph', () => {
  it("takes optimum's exports: per-token logits for either head, pooled logits for a sequence classifier", () => {
    expect(describeRewardGraph({ inputMetadata: [ids, mask], outputMetadata: [perToken] }, 'last_token', 'm.onnx')).toEqual({
      inputs: [
        { name: 'input_ids', type: 'int64' },
        { name: 'attention_mask', type: 'int64' },
      ],
      output: 'logits',
      kind: 'tokens',
    });
    const withPositions = describeRewardGraph(
      { inputMetadata: [tensor('input_ids', 'int32', ['b', 's']), tensor('position_ids', 'int64', ['b', 's'])], outputMetadata: [pooled] },
      'last_non_pad',
      'm.onnx',
    );
    expect(withPositions).toEqual({
      inputs: [
        { name: 'input_ids', type: 'int32' },
        { name: 'position_ids', type: 'int64' },
      ],
      output: 'logits',
      kind: 'pooled',
    });
    // A single output of another name is the score; logits wins among several.
    expect(describeRewardGraph({ inputMetadata: [ids], outputMetadata: [tensor('scores', 'float32', ['b', 's', 1])] }, 'last_token', 'm').output).toBe(
      'scores',
    );
    expect(
      describeRewardGraph({ inputMetadata: [ids], outputMetadata: [tensor('hidden', 'float32', ['b', 's', 8]), perToken] }, 'last_token', 'm').output,
    ).toBe('logits');
  });

  it.each([
    [
      'a past-key-values input',
      [ids, mask, tensor('past_key_values.0.key', 'float32', ['b', 2, 'p', 8])],
      [perToken],
      'last_token',
      /graph input "past_key_values\.0\.key" is not one this service feeds/,
    ],
    ['token_type_ids', [ids, tensor('token_type_ids', 'int64', ['b', 's'])], [perToken], 'last_token', /graph input "token_type_ids"/],
    ['float ids', [tensor('input_ids', 'float32', ['b', 's'])], [perToken], 'last_token', /graph input input_ids is float32, expected int64 or int32/],
    ['no input_ids', [mask], [perToken], 'last_token', /no input_ids input/],
    ['two labels', [ids], [tensor('logits', 'float32', ['b', 's', 2])], 'last_token', /has 2 labels; a reward model has one/],
    ['pooled for a token classifier', [ids], [pooled], 'last_token', /a \.\.\.ForTokenClassification reward model is read per token/],
    ['no logits among several', [ids], [tensor('a', 'float32', ['b', 1]), tensor('b', 'float32', ['b', 1])], 'last_non_pad', /no logits output among \[a, b\]/],
    ['a rank-1 output', [ids], [tensor('logits', 'float32', ['b'])], 'last_non_pad', /has rank 1/],
    ['float16 logits', [ids], [tensor('logits', 'float16', ['b', 's', 1])], 'last_token', /output logits is not a float32 tensor/],
  ] as const)('refuses %s, naming the file', (_what, inputs, outputs, readAt, message) => {
    expect(() => describeRewardGraph({ inputMetadata: inputs, outputMetadata: outputs }, readAt, '/m/model.onnx')).toThrow(message);
    expect(() => describeRewardGraph({ inputMetadata: inputs, outputMetadata: outputs }, readAt, '/m/model.onnx')).toThrow(/^\/m\/model\.onnx: /);
  });
});
