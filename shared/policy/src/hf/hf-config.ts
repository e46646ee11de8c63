// Hugging Face config.json <-> ModelConfig. Reading follows transformers'
// LlamaConfig / Qwen2Config / Qwen3Config: the same keys, the same defaults per
// model_type, transformers 4.x rope keys (rope_theta + rope_scaling with `type`
// or `rope_type`) and 5.x `rope_parameters`. Writing gives the 4.x-style
// config.json that transformers (4.x and 5.x) and vLLM load.
import { AppError, ErrorCode, getOwn } from '@rl/service-kit/core';
import { ModelConfig, type Architecture, type RopeScaling } from '../model/model-config.ts';
import type { StoredDtype } from '../weights/dtypes.ts';

type Family = 'llama' | 'qwen2' | 'qwen3';

const FAMILY_OF: Readonly<Record<Architecture, Family>> = {
  LlamaForCausalLM: 'llama',
  Qwen2ForCausalLM: 'qwen2',
  Qwen3ForCausalLM: 'qwen3',
};
const CAUSAL_LM: Readonly<Record<Family, Architecture>> = { llama: 'LlamaForCausalLM', qwen2: 'Qwen2ForCausalLM', qwen3: 'Qwen3ForCausalLM' };
const PREFIX: Readonly<Record<Family, string>> = { llama: 'Llama', qwen2: 'Qwen2', qwen3: 'Qwen3' };

/** What an `architectures[0]` entry names: the decoder family and its head. */
interface ArchitectureName {
  family: Family;
  head: 'causal_lm' | 'token_classification' | 'sequence_classification';
}

const ARCHITECTURES: ReadonlyMap<string, ArchitectureName> = new Map(
  (['llama', 'qwen2', 'qwen3'] as const).flatMap(
    (family): Array<[string, ArchitectureName]> => [
      [`${PREFIX[family]}ForCausalLM`, { family, head: 'causal_lm' }],
      // A one-label ...ForTokenClassification is a critic (verl's critic and reward models).
      [`${PREFIX[family]}ForTokenClassification`, { family, head: 'token_classification' }],
      // ...ForSequenceClassification has the same `score` Linear (without bias) but reads the score at the last
      // non-pad token; which token a reward model reads is the reward-model code's concern, not the loader's.
      [`${PREFIX[family]}ForSequenceClassification`, { family, head: 'sequence_classification' }],
    ],
  ),
);

/** transformers' defaults for keys absent from config.json, per model_type (configuration_{llama,qwen2,qwen3}.py). */
const DEFAULTS: Readonly<
  Record<Family, { vocab_size: number; hidden_size: number; intermediate_size: number; max_position_embeddings: number; num_key_value_heads: number | null }>
> = {
  // LlamaConfig: num_key_value_heads None -> num_attention_heads; head_dim None -> hidden_size // num_attention_heads.
  llama: { vocab_size: 32000, hidden_size: 4096, intermediate_size: 11008, max_position_embeddings: 2048, num_key_value_heads: null },
  // Qwen2Config: num_key_value_heads defaults to 32 (only an explicit null means num_attention_heads); head_dim is not
  // a field, the attention reads getattr(config, 'head_dim', hidden_size // num_attention_heads).
  qwen2: { vocab_size: 151936, hidden_size: 4096, intermediate_size: 22016, max_position_embeddings: 32768, num_key_value_heads: 32 },
  // Qwen3Config: as Qwen2, plus head_dim defaulting to 128 (not hidden_size // num_attention_heads).
  qwen3: { vocab_size: 151936, hidden_size: 4096, intermediate_size: 22016, max_position_embeddings: 32768, num_key_value_heads: 32 },
};
const DEFAULT_LAYERS = 32;
const DEFAULT_HEADS = 32;
const DEFAULT_ROPE_THETA = 10_000;
const DEFAULT_NORM_EPS = 1e-6;
/** PretrainedConfig's label count when neither num_labels nor id2label is given. */
const DEFAULT_NUM_LABELS = 2;

/** camelCase field -> the config.json key it comes from, for error messages. */
const HF_KEY: Readonly<Record<string, string>> = {
  architecture: 'architectures',
  vocabSize: 'vocab_size',
  dModel: 'hidden_size',
  nLayers: 'num_hidden_layers',
  nHeads: 'num_attention_heads',
  nKvHeads: 'num_key_value_heads',
  headDim: 'head_dim',
  dFF: 'intermediate_size',
  maxSeqLen: 'max_position_embeddings',
  ropeTheta: 'rope_theta',
  normEps: 'rms_norm_eps',
  tieEmbeddings: 'tie_word_embeddings',
  attentionBias: 'attention_bias',
  mlpBias: 'mlp_bias',
};
const ROPE_KEY: Readonly<Record<string, string>> = {
  factor: 'factor',
  lowFreqFactor: 'low_freq_factor',
  highFreqFactor: 'high_freq_factor',
  originalMaxPositionEmbeddings: 'original_max_position_embeddings',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

/**
 * Reads a Hugging Face config.json (parsed JSON) of a Llama / Qwen2 / Qwen3
 * causal LM, or of their one-label token- or sequence-classification variants
 * (as `valueHead`). Anything unsupported is a 400 `validation_failed` whose
 * message is `<file>: <key>: <problem>`.
 */
export function parseHfConfig(json: unknown, file = 'config.json'): ModelConfig {
  const fail = (key: string, problem: string) => new AppError(ErrorCode.ValidationFailed, `${file}: ${key}: ${problem}`);
  if (!isObject(json)) throw fail('(root)', 'must be a JSON object');
  const get = (key: string): unknown => getOwn(json, key);

  const { family, head } = readArchitecture(get('architectures'), get('model_type'), fail);
  if (get('quantization_config') !== undefined) throw fail('quantization_config', 'quantized checkpoints are not supported (F32, BF16 or F16 weights only)');
  const act = get('hidden_act') ?? 'silu';
  if (act !== 'silu') throw fail('hidden_act', `${show(act)} is not supported (silu)`);
  if (family !== 'llama' && get('use_sliding_window') === true) throw fail('use_sliding_window', 'true is not supported (full attention only)');

  const d = DEFAULTS[family];
  const valueOr = (key: string, fallback: unknown): unknown => {
    const v = get(key);
    return v === undefined || v === null ? fallback : v;
  };
  const nHeads = valueOr('num_attention_heads', DEFAULT_HEADS);
  const kvRaw = get('num_key_value_heads');
  const nKvHeads = kvRaw === undefined ? (d.num_key_value_heads ?? nHeads) : kvRaw === null ? nHeads : kvRaw;
  const headDimRaw = get('head_dim');
  const headDim = headDimRaw === undefined || headDimRaw === null ? (family === 'qwen3' ? 128 : undefined) : headDimRaw;
  const isQwen2 = family === 'qwen2';
  const { ropeTheta, ropeScaling } = readRope(json, fail);

  let valueHead = false;
  if (head !== 'causal_lm') {
    const labels = numLabels(json, fail);
    if (labels !== 1) throw fail('num_labels', `${labels} labels; a value head has exactly 1`);
    valueHead = true;
  }
  const input: Record<string, unknown> = {
    architecture: CAUSAL_LM[family],
    vocabSize: valueOr('vocab_size', d.vocab_size),
    dModel: valueOr('hidden_size', d.hidden_size),
    nLayers: valueOr('num_hidden_layers', DEFAULT_LAYERS),
    nHeads,
    nKvHeads,
    dFF: valueOr('intermediate_size', d.intermediate_size),
    maxSeqLen: valueOr('max_position_embeddings', d.max_position_embeddings),
    ropeTheta,
    ropeScaling,
    normEps: valueOr('rms_norm_eps', DEFAULT_NORM_EPS),
    tieEmbeddings: valueOr('tie_word_embeddings', false),
    // Qwen2's attention biases are fixed by the architecture; transformers ignores these keys there.
    attentionBias: isQwen2 ? false : valueOr('attention_bias', false),
    mlpBias: family === 'llama' ? valueOr('mlp_bias', false) : false,
    valueHead,
  };
  if (headDim !== undefined) input.headDim = headDim;
  const parsed = ModelConfig.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [field, ...rest] = (issue?.path ?? []).map(String);
    const key =
      field === 'ropeScaling'
        ? `${ropeSource(json)}${rest.length > 0 ? `.${ROPE_KEY[rest[0] as string] ?? rest[0]}` : ''}`
        : (HF_KEY[field ?? ''] ?? field ?? '(root)');
    const shown = field === undefined || field === 'ropeScaling' ? '' : ` (got ${show(input[field])})`;
    throw fail(key, `${issue?.message ?? 'invalid'}${shown}`);
  }
  return parsed.data;
}

function readArchitecture(architectures: unknown, modelType: unknown, fail: (key: string, problem: string) => AppError): ArchitectureName & { name: string } {
  if (modelType !== undefined && modelType !== 'llama' && modelType !== 'qwen2' && modelType !== 'qwen3') {
    throw fail('model_type', `${show(modelType)} is not supported (llama, qwen2, qwen3)`);
  }
  if (architectures === undefined || architectures === null) {
    // transformers' Auto classes go by model_type alone; the causal LM is what such a directory holds.
    if (modelType === undefined) throw fail('architectures', 'missing (and no model_type to go by)');
    return { name: CAUSAL_LM[modelType], family: modelType, head: 'causal_lm' };
  }
  if (!Array.isArray(architectures) || architectures.length === 0 || typeof architectures[0] !== 'string') {
    throw fail('architectures', `must be a non-empty list of class names, got ${show(architectures)}`);
  }
  const name = architectures[0];
  const arch = ARCHITECTURES.get(name);
  if (arch === undefined) {
    throw fail('architectures[0]', `${show(name)} is not supported (${[...ARCHITECTURES.keys()].join(', ')})`);
  }
  if (modelType !== undefined && modelType !== arch.family) throw fail('model_type', `${show(modelType)} does not match architectures[0] ${name}`);
  return { name, ...arch };
}

/** The rope dict transformers reads: rope_scaling (4.x) wins over rope_parameters (5.x) when both are non-empty. */
function ropeSource(json: Record<string, unknown>): 'rope_scaling' | 'rope_parameters' {
  const scaling = getOwn(json, 'rope_scaling');
  if (scaling === undefined || scaling === null || (isObject(scaling) && Object.keys(scaling).length === 0)) return 'rope_parameters';
  return 'rope_scaling';
}

function readRope(json: Record<string, unknown>, fail: (key: string, problem: string) => AppError): { ropeTheta: unknown; ropeScaling: RopeScaling | null } {
  const key = ropeSource(json);
  const raw = getOwn(json, key);
  if (raw !== undefined && raw !== null && !isObject(raw)) throw fail(key, `must be an object or null, got ${show(raw)}`);
  const rope = raw ?? {};
  if (isObject(getOwn(rope, 'full_attention')) || isObject(getOwn(rope, 'sliding_attention'))) {
    throw fail(key, 'per-layer-type rope parameters are not supported');
  }
  const top = getOwn(json, 'rope_theta');
  const ropeTheta = getOwn(rope, 'rope_theta') ?? (top === null || top === undefined ? DEFAULT_ROPE_THETA : top);
  const typeKey = getOwn(rope, 'rope_type') !== undefined ? 'rope_type' : 'type';
  const type = getOwn(rope, typeKey) ?? 'default';
  const num = (name: string): number => {
    const v = getOwn(rope, name);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw fail(`${key}.${name}`, `must be a number for rope type ${show(type)}, got ${show(v)}`);
    return v;
  };
  switch (type) {
    case 'default':
      return { ropeTheta, ropeScaling: null };
    case 'linear':
      return { ropeTheta, ropeScaling: { type: 'linear', factor: num('factor') } };
    case 'llama3':
      return {
        ropeTheta,
        ropeScaling: {
          type: 'llama3',
          factor: num('factor'),
          lowFreqFactor: num('low_freq_factor'),
          highFreqFactor: num('high_freq_factor'),
          originalMaxPositionEmbeddings: num('original_max_position_embeddings'),
        },
      };
    default:
      throw fail(`${key}.${typeKey}`, `${show(type)} is not supported (default, linear, llama3)`);
  }
}

/** PretrainedConfig's label count: num_labels, else the size of id2label, else 2. */
function numLabels(json: Record<string, unknown>, fail: (key: string, problem: string) => AppError): number {
  const n = getOwn(json, 'num_labels');
  if (n !== undefined && n !== null) {
    if (typeof n !== 'number' || !Number.isInteger(n)) throw fail('num_labels', `must be an integer, got ${show(n)}`);
    return n;
  }
  const id2label = getOwn(json, 'id2label');
  if (id2label !== undefined && id2label !== null) {
    if (!isObject(id2label)) throw fail('id2label', `must be an object, got ${show(id2label)}`);
    return Object.keys(id2label).length;
  }
  return DEFAULT_NUM_LABELS;
}

/** Token ids config.json and generation_config.json carry. */
export interface GenerationIds {
  bos: number | null;
  eos: number | number[];
  pad: number;
}

const TORCH_DTYPE: Readonly<Record<StoredDtype, string>> = { F32: 'float32', BF16: 'bfloat16', F16: 'float16' };

/**
 * The config.json transformers and vLLM load for `config`: the ...ForCausalLM,
 * or ...ForTokenClassification with one label when it has a value head.
 * `dtype` is the dtype of the saved weights.
 */
export function toHfConfig(config: ModelConfig, ids?: GenerationIds, options: { dtype?: StoredDtype } = {}): Record<string, unknown> {
  const family = FAMILY_OF[config.architecture];
  const architecture = config.valueHead ? `${PREFIX[family]}ForTokenClassification` : config.architecture;
  const rs = config.ropeScaling;
  const dtype = TORCH_DTYPE[options.dtype ?? 'F32'];
  const out: Record<string, unknown> = {
    architectures: [architecture],
    model_type: family,
    vocab_size: config.vocabSize,
    hidden_size: config.dModel,
    intermediate_size: config.dFF,
    num_hidden_layers: config.nLayers,
    num_attention_heads: config.nHeads,
    num_key_value_heads: config.nKvHeads,
    head_dim: config.headDim,
    hidden_act: 'silu',
    max_position_embeddings: config.maxSeqLen,
    initializer_range: 0.02,
    rms_norm_eps: config.normEps,
    use_cache: true,
    tie_word_embeddings: config.tieEmbeddings,
    rope_theta: config.ropeTheta,
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
    attention_dropout: 0,
  };
  if (family === 'llama') Object.assign(out, { attention_bias: config.attentionBias, mlp_bias: config.mlpBias, pretraining_tp: 1 });
  if (family === 'qwen3') out.attention_bias = config.attentionBias;
  if (family !== 'llama') Object.assign(out, { use_sliding_window: false, sliding_window: null, max_window_layers: config.nLayers });
  if (config.valueHead) Object.assign(out, { num_labels: 1, id2label: { '0': 'LABEL_0' }, label2id: { LABEL_0: 0 } });
  if (ids !== undefined) Object.assign(out, { bos_token_id: ids.bos, eos_token_id: ids.eos, pad_token_id: ids.pad });
  // transformers 4.x reads torch_dtype, 4.56+ and 5.x write dtype; both name the stored weights' precision.
  Object.assign(out, { torch_dtype: dtype, dtype });
  return out;
}
