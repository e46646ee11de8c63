import { describe, expect, it } from 'vitest';
import type { AppError } from '@rl/service-kit/core';
import { parseModelConfig, type ModelConfigInput } from '../model/model-config.ts';
import { parseHfConfig, toHfConfig } from './hf-config.ts';

// The config.json files of published checkpoints, key for key.
const QWEN3_1_7B = {
  architectures: ['Qwen3ForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  head_dim: 128,
  hidden_act: 'silu',
  hidden_size: 2048,
  initializer_range: 0.02,
  intermediate_size: 6144,
  max_position_embeddings: 40960,
  max_window_layers: 28,
  model_type: 'qwen3',
  num_attention_heads: 16,
  num_hidden_layers: 28,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-6,
  rope_scaling: null,
  rope_theta: 1000000,
  sliding_window: null,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.51.0',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

const LLAMA_3_2_1B = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 128000,
  eos_token_id: 128001,
  head_dim: 64,
  hidden_act: 'silu',
  hidden_size: 2048,
  initializer_range: 0.02,
  intermediate_size: 8192,
  max_position_embeddings: 131072,
  mlp_bias: false,
  model_type: 'llama',
  num_attention_heads: 32,
  num_hidden_layers: 16,
  num_key_value_heads: 8,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.45.0.dev0',
  use_cache: true,
  vocab_size: 128256,
};

const QWEN2_5_0_5B_INSTRUCT = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  hidden_act: 'silu',
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 21,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  transformers_version: '4.43.1',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as AppError).code}: ${(e as Error).message}`;
  }
  return 'no error';
}

describe('parseHfConfig', () => {
  it('reads Qwen3-1.7B', () => {
    expect(parseHfConfig(QWEN3_1_7B)).toEqual(
      parseModelConfig({
        architecture: 'Qwen3ForCausalLM',
        vocabSize: 151936,
        dModel: 2048,
        nLayers: 28,
        nHeads: 16,
        nKvHeads: 8,
        headDim: 128,
        dFF: 6144,
        maxSeqLen: 40960,
        ropeTheta: 1e6,
        ropeScaling: null,
        normEps: 1e-6,
        tieEmbeddings: true,
        attentionBias: false,
        mlpBias: false,
        valueHead: false,
      }),
    );
  });

  it('reads Llama 3.2 with its llama3 rope scaling', () => {
    expect(parseHfConfig(LLAMA_3_2_1B)).toEqual(
      parseModelConfig({
        architecture: 'LlamaForCausalLM',
        vocabSize: 128256,
        dModel: 2048,
        nLayers: 16,
        nHeads: 32,
        nKvHeads: 8,
        headDim: 64,
        dFF: 8192,
        maxSeqLen: 131072,
        ropeTheta: 500000,
        ropeScaling: { type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
        normEps: 1e-5,
        tieEmbeddings: true,
      }),
    );
  });

  it('reads Qwen2.5-0.5B-Instruct (no head_dim key: hidden_size / num_attention_heads; sliding_window ignored when unused)', () => {
    const c = parseHfConfig(QWEN2_5_0_5B_INSTRUCT);
    expect(c).toMatchObject({ architecture: 'Qwen2ForCausalLM', dModel: 896, nHeads: 14, nKvHeads: 2, headDim: 64, dFF: 4864, nLayers: 24, ropeTheta: 1e6 });
    expect(c).toMatchObject({ tieEmbeddings: true, attentionBias: false, mlpBias: false, ropeScaling: null, normEps: 1e-6, maxSeqLen: 32768 });
  });

  it("fills absent keys with transformers' defaults per model_type", () => {
    const llama = parseHfConfig({ architectures: ['LlamaForCausalLM'], hidden_size: 64, intermediate_size: 128, num_hidden_layers: 2, num_attention_heads: 4 });
    expect(llama).toEqual(
      parseModelConfig({
        architecture: 'LlamaForCausalLM',
        vocabSize: 32000,
        dModel: 64,
        nLayers: 2,
        nHeads: 4,
        nKvHeads: 4,
        headDim: 16,
        dFF: 128,
        maxSeqLen: 2048,
        ropeTheta: 10000,
        normEps: 1e-6,
        tieEmbeddings: false,
      }),
    );
    // Qwen2/Qwen3: num_key_value_heads defaults to 32 and Qwen3's head_dim to 128, whatever the other sizes.
    const qwen3 = parseHfConfig({ model_type: 'qwen3', hidden_size: 256, num_hidden_layers: 1 });
    expect(qwen3).toMatchObject({ architecture: 'Qwen3ForCausalLM', vocabSize: 151936, nHeads: 32, nKvHeads: 32, headDim: 128, dFF: 22016, maxSeqLen: 32768 });
    expect(qwen3).toMatchObject({ tieEmbeddings: false, ropeTheta: 10000, attentionBias: false });
    expect(messageOf(() => parseHfConfig({ model_type: 'qwen2', hidden_size: 64, num_attention_heads: 4 }))).toBe(
      'validation_failed: config.json: num_key_value_heads: nKvHeads (32) must divide nHeads (4) (got 32)',
    );
    // An explicit null means num_attention_heads (transformers' backward compatibility).
    expect(parseHfConfig({ model_type: 'qwen2', hidden_size: 64, num_attention_heads: 4, num_key_value_heads: null }).nKvHeads).toBe(4);
  });

  it('reads transformers 4.x rope keys (`type` or `rope_type`) and 5.x rope_parameters', () => {
    const base = { architectures: ['LlamaForCausalLM'], hidden_size: 64, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 4, vocab_size: 64 };
    expect(parseHfConfig({ ...base, rope_theta: 5e5, rope_scaling: { type: 'linear', factor: 2 } })).toMatchObject({
      ropeTheta: 5e5,
      ropeScaling: { type: 'linear', factor: 2 },
    });
    const llama3 = { factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 };
    const expected = { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };
    expect(parseHfConfig({ ...base, rope_parameters: { rope_type: 'llama3', rope_theta: 5e5, ...llama3 } })).toMatchObject({
      ropeTheta: 5e5,
      ropeScaling: expected,
    });
    expect(parseHfConfig({ ...base, rope_parameters: { rope_type: 'default', rope_theta: 1234 } })).toMatchObject({ ropeTheta: 1234, ropeScaling: null });
    // rope_scaling wins over rope_parameters; a top-level rope_theta fills in when the dict has none.
    expect(
      parseHfConfig({ ...base, rope_theta: 7, rope_scaling: { rope_type: 'linear', factor: 3 }, rope_parameters: { rope_type: 'default' } }),
    ).toMatchObject({
      ropeTheta: 7,
      ropeScaling: { type: 'linear', factor: 3 },
    });
    expect(parseHfConfig({ ...base, rope_scaling: {}, rope_parameters: { rope_type: 'linear', factor: 4 } })).toMatchObject({
      ropeTheta: 10000,
      ropeScaling: { type: 'linear', factor: 4 },
    });
  });

  it('reads one-label token and sequence classification models as value heads', () => {
    const critic = parseHfConfig({ ...QWEN3_1_7B, architectures: ['Qwen3ForTokenClassification'], id2label: { '0': 'LABEL_0' }, label2id: { LABEL_0: 0 } });
    expect(critic).toMatchObject({ architecture: 'Qwen3ForCausalLM', valueHead: true });
    expect(parseHfConfig({ ...LLAMA_3_2_1B, architectures: ['LlamaForSequenceClassification'], num_labels: 1 })).toMatchObject({
      architecture: 'LlamaForCausalLM',
      valueHead: true,
    });
  });

  it('refuses what the engine does not compute, naming the file and key', () => {
    const file = '/models/x/config.json';
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...QWEN3_1_7B, architectures: ['MistralForCausalLM'] }, 'architectures[0]: "MistralForCausalLM" is not supported'],
      [{ ...QWEN3_1_7B, architectures: 'Qwen3ForCausalLM' }, 'architectures: must be a non-empty list of class names, got "Qwen3ForCausalLM"'],
      [{ ...QWEN3_1_7B, model_type: 'mistral' }, 'model_type: "mistral" is not supported (llama, qwen2, qwen3)'],
      [{ ...QWEN3_1_7B, model_type: 'qwen2' }, 'model_type: "qwen2" does not match architectures[0] Qwen3ForCausalLM'],
      [{ model_type: undefined, hidden_size: 8 }, 'architectures: missing (and no model_type to go by)'],
      [{ ...LLAMA_3_2_1B, rope_scaling: { rope_type: 'yarn', factor: 4 } }, 'rope_scaling.rope_type: "yarn" is not supported (default, linear, llama3)'],
      [{ ...LLAMA_3_2_1B, rope_scaling: { type: 'dynamic', factor: 2 } }, 'rope_scaling.type: "dynamic" is not supported (default, linear, llama3)'],
      [{ ...LLAMA_3_2_1B, rope_scaling: null, rope_parameters: { rope_type: 'longrope' } }, 'rope_parameters.rope_type: "longrope" is not supported'],
      [
        { ...LLAMA_3_2_1B, rope_scaling: { rope_type: 'llama3', factor: 8, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
        'rope_scaling.low_freq_factor: must be a number for rope type "llama3", got undefined',
      ],
      [
        { ...LLAMA_3_2_1B, rope_scaling: { ...LLAMA_3_2_1B.rope_scaling, high_freq_factor: 0.5 } },
        'rope_scaling.high_freq_factor: highFreqFactor must be greater than lowFreqFactor',
      ],
      [{ ...LLAMA_3_2_1B, rope_scaling: { rope_type: 'linear', factor: -2 } }, 'rope_scaling.factor: '],
      [{ ...LLAMA_3_2_1B, rope_scaling: 'linear' }, 'rope_scaling: must be an object or null, got "linear"'],
      [{ ...QWEN2_5_0_5B_INSTRUCT, use_sliding_window: true }, 'use_sliding_window: true is not supported (full attention only)'],
      [{ ...QWEN3_1_7B, hidden_act: 'gelu' }, 'hidden_act: "gelu" is not supported (silu)'],
      [{ ...QWEN3_1_7B, quantization_config: { quant_method: 'awq' } }, 'quantization_config: quantized checkpoints are not supported'],
      [{ ...QWEN3_1_7B, architectures: ['Qwen3ForTokenClassification'] }, 'num_labels: 2 labels; a value head has exactly 1'],
      [{ ...QWEN3_1_7B, architectures: ['Qwen3ForSequenceClassification'], id2label: { 0: 'a', 1: 'b', 2: 'c' } }, 'num_labels: 3 labels'],
      [{ ...QWEN3_1_7B, hidden_size: '2048' }, 'hidden_size: '],
      [{ ...QWEN3_1_7B, num_key_value_heads: 3 }, 'num_key_value_heads: nKvHeads (3) must divide nHeads (16)'],
      [{ ...QWEN3_1_7B, head_dim: 7 }, 'head_dim: headDim must be even for RoPE'],
      [{ ...QWEN3_1_7B, tie_word_embeddings: 'yes' }, 'tie_word_embeddings: '],
      [{ ...LLAMA_3_2_1B, head_dim: null, hidden_size: 2050 }, 'hidden_size: dModel must be divisible by nHeads when headDim is not given'],
    ];
    for (const [json, problem] of cases) {
      const cleaned = Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined));
      expect(messageOf(() => parseHfConfig(cleaned, file))).toContain(`validation_failed: ${file}: ${problem}`);
    }
    expect(messageOf(() => parseHfConfig([1]))).toBe('validation_failed: config.json: (root): must be a JSON object');
  });
});

describe('toHfConfig', () => {
  const tiny = { vocabSize: 96, dModel: 32, nLayers: 2, nHeads: 4, dFF: 48, maxSeqLen: 128 };
  const variants: ModelConfigInput[] = [
    { ...tiny },
    { ...tiny, architecture: 'Qwen3ForCausalLM', nKvHeads: 2, headDim: 16, attentionBias: true, tieEmbeddings: false, ropeTheta: 1e6, normEps: 1e-5 },
    { ...tiny, architecture: 'Qwen3ForCausalLM', valueHead: true },
    { ...tiny, architecture: 'Qwen2ForCausalLM', nKvHeads: 1, tieEmbeddings: false },
    { ...tiny, architecture: 'Qwen2ForCausalLM', headDim: 12, valueHead: true, tieEmbeddings: false },
    { ...tiny, architecture: 'LlamaForCausalLM', attentionBias: true, mlpBias: true, ropeScaling: { type: 'linear', factor: 2 } },
    {
      ...tiny,
      architecture: 'LlamaForCausalLM',
      nKvHeads: 2,
      ropeTheta: 5e5,
      ropeScaling: { type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 64 },
    },
  ];

  it('round-trips every architecture and option through config.json text', () => {
    for (const input of variants) {
      const config = parseModelConfig(input);
      const text = JSON.stringify(toHfConfig(config, { bos: 1, eos: [2, 3], pad: 0 }, { dtype: 'BF16' }));
      expect(parseHfConfig(JSON.parse(text))).toEqual(config);
    }
  });

  it("writes transformers' keys: the class, model_type, dtype, token ids, 4.x rope keys, one label for a value head", () => {
    const llama = toHfConfig(parseModelConfig(variants[6] as ModelConfigInput), { bos: 1, eos: 2, pad: 0 });
    expect(llama).toMatchObject({
      architectures: ['LlamaForCausalLM'],
      model_type: 'llama',
      torch_dtype: 'float32',
      dtype: 'float32',
      hidden_act: 'silu',
      bos_token_id: 1,
      eos_token_id: 2,
      pad_token_id: 0,
      rope_theta: 5e5,
      rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 },
      attention_bias: false,
      mlp_bias: false,
      num_key_value_heads: 2,
      head_dim: 8,
    });
    expect(Object.keys(llama)).not.toContain('use_sliding_window');
    const critic = toHfConfig(parseModelConfig(variants[2] as ModelConfigInput), undefined, { dtype: 'BF16' });
    expect(critic).toMatchObject({
      architectures: ['Qwen3ForTokenClassification'],
      model_type: 'qwen3',
      num_labels: 1,
      id2label: { '0': 'LABEL_0' },
      torch_dtype: 'bfloat16',
    });
    expect(critic).toMatchObject({ use_sliding_window: false, sliding_window: null, max_window_layers: 2, rope_scaling: null });
    expect(Object.keys(critic)).not.toContain('bos_token_id');
    const qwen2 = toHfConfig(parseModelConfig(variants[3] as ModelConfigInput));
    expect(Object.keys(qwen2)).not.toContain('attention_bias');
    expect(Object.keys(qwen2)).not.toContain('mlp_bias');
  });
});
