// adapter_config.json of a PEFT LoRA adapter (peft's LoraConfig, as
// PeftConfig.save_pretrained writes it: every field, keys sorted, indent 2).
// What an adapter computes: each targeted Linear's weight W [out, in] becomes
// W + scaling * B A with A = lora_A [r, in], B = lora_B [out, r] and
// scaling = lora_alpha / r, or lora_alpha / sqrt(r) with use_rslora.
// Settings that change that computation in ways this project does not
// implement (DoRA, a lora_B bias, per-module ranks, fan_in_fan_out, ...) are
// refused by name; the fields that only describe training are read and kept.
import { z } from 'zod';
import { AppError, ErrorCode, formatPath } from '@rl/service-kit/core';

export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';
/** `target_modules` meaning every Linear of the decoder layers (the heads excepted), as peft resolves it. */
export const ALL_LINEAR = 'all-linear';
/** The value head, trained whole beside the adapter (peft's modules_to_save of a TOKEN_CLS model). */
export const VALUE_HEAD = 'score';

/** Module names or name suffixes, or one full-match regular expression (or {@link ALL_LINEAR}). */
export type ModuleNames = string[] | string;

/** A LoRA adapter's settings. */
export interface LoraSettings {
  r: number;
  loraAlpha: number;
  targetModules: ModuleNames;
  excludeModules: ModuleNames | null;
  useRslora: boolean;
  loraDropout: number;
  /** true: A kaiming-uniform, B zero (peft's default); false: both random; 'gaussian': A ~ N(0, 1/r). */
  initLoraWeights: boolean | 'gaussian';
  /** The value head is saved whole beside the adapter (task_type TOKEN_CLS, modules_to_save ["score"]). */
  valueHead: boolean;
  /** base_model_name_or_path: the model the adapter was trained on (informational). */
  baseModel: string | null;
}

/** W + scaling * B A. */
export function loraScaling(s: Pick<LoraSettings, 'r' | 'loraAlpha' | 'useRslora'>): number {
  return s.useRslora ? s.loraAlpha / Math.sqrt(s.r) : s.loraAlpha / s.r;
}

const show = (v: unknown) => JSON.stringify(v);

const Names = z.union([z.array(z.string().min(1)).min(1), z.string().min(1)], {
  error: 'must be a list of module names, a regular expression or "all-linear"',
});
/** A key whose only supported value is peft's default (null/absent, or `value`). */
const onlyDefault = (value: unknown, problem: string) =>
  z
    .unknown()
    .refine((v) => v === undefined || v === null || v === value || (typeof value === 'object' && isEmpty(v)), { error: problem })
    .optional();

function isEmpty(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
}

const AdapterConfigJson = z.looseObject({
  peft_type: z.unknown().refine((v) => v === 'LORA', { error: (i) => `${show(i.input)} is not supported (LORA only)` }),
  r: z.number({ error: 'must be a positive integer' }).int('must be a positive integer').positive('must be a positive integer'),
  lora_alpha: z.number({ error: 'must be a positive number' }).positive('must be a positive number').default(8),
  target_modules: Names,
  exclude_modules: Names.nullish(),
  lora_dropout: z.number({ error: 'must be a number in [0, 1)' }).min(0, 'must be a number in [0, 1)').lt(1, 'must be a number in [0, 1)').default(0),
  bias: z
    .unknown()
    .refine((v) => v === undefined || v === 'none', { error: (i) => `${show(i.input)} is not supported ("none" only: base biases stay as they are)` })
    .optional(),
  use_rslora: z.boolean({ error: 'must be true or false' }).default(false),
  init_lora_weights: z
    .unknown()
    .refine((v) => v === undefined || typeof v === 'boolean' || v === 'gaussian', {
      error: (i) => `${show(i.input)} is not supported (true, false or "gaussian"; other inits change the base weights)`,
    })
    .optional(),
  task_type: z
    .unknown()
    .refine((v) => v === undefined || v === null || v === 'CAUSAL_LM' || v === 'TOKEN_CLS', {
      error: (i) => `${show(i.input)} is not supported (CAUSAL_LM, or TOKEN_CLS for a critic)`,
    })
    .optional(),
  modules_to_save: z
    .unknown()
    .refine((v) => v === undefined || v === null || isEmpty(v) || (Array.isArray(v) && v.length === 1 && v[0] === VALUE_HEAD), {
      error: (i) => `${show(i.input)} is not supported (only the value head, ["${VALUE_HEAD}"])`,
    })
    .optional(),
  base_model_name_or_path: z.string().nullish(),
  fan_in_fan_out: onlyDefault(false, 'must be false (the weights are [out, in], as torch.nn.Linear stores them)'),
  use_dora: onlyDefault(false, 'DoRA is not supported (use_dora must be false)'),
  lora_bias: onlyDefault(false, 'a bias on lora_B is not supported (lora_bias must be false)'),
  layers_to_transform: onlyDefault(null, 'is not supported (choose layers with target_modules)'),
  layers_pattern: onlyDefault(null, 'is not supported (choose layers with target_modules)'),
  rank_pattern: onlyDefault({}, 'per-module ranks are not supported (rank_pattern must be empty)'),
  alpha_pattern: onlyDefault({}, 'per-module alphas are not supported (alpha_pattern must be empty)'),
  target_parameters: onlyDefault([], 'is not supported (LoRA on Linear modules only)'),
  layer_replication: onlyDefault(null, 'is not supported'),
  trainable_token_indices: onlyDefault(null, 'is not supported'),
});

/** A parsed adapter_config.json; errors name `file` and the key. */
export function parseAdapterConfig(json: unknown, file: string = ADAPTER_CONFIG_FILE): LoraSettings {
  const parsed = AdapterConfigJson.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue === undefined ? '(root)' : issue.path.length === 0 ? '(root)' : formatPath(issue.path);
    throw new AppError(ErrorCode.ValidationFailed, `${file}: ${key}: ${issue?.message ?? 'invalid'}`);
  }
  const c = parsed.data;
  const modulesToSave = Array.isArray(c.modules_to_save) && c.modules_to_save.length === 1;
  if (modulesToSave !== (c.task_type === 'TOKEN_CLS')) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `${file}: modules_to_save: ["${VALUE_HEAD}"] goes with task_type TOKEN_CLS (a critic's value head), and only with it`,
    );
  }
  if (typeof c.target_modules === 'string' && c.target_modules.toLowerCase() !== ALL_LINEAR) checkRegExp(c.target_modules, file, 'target_modules');
  if (typeof c.exclude_modules === 'string') checkRegExp(c.exclude_modules, file, 'exclude_modules');
  return {
    r: c.r,
    loraAlpha: c.lora_alpha,
    targetModules: c.target_modules,
    excludeModules: c.exclude_modules ?? null,
    useRslora: c.use_rslora,
    loraDropout: c.lora_dropout,
    initLoraWeights: (c.init_lora_weights as boolean | 'gaussian' | undefined) ?? true,
    valueHead: modulesToSave,
    baseModel: c.base_model_name_or_path ?? null,
  };
}

function checkRegExp(pattern: string, file: string, key: string): void {
  try {
    new RegExp(pattern);
  } catch {
    throw new AppError(ErrorCode.ValidationFailed, `${file}: ${key}: ${show(pattern)} is not a regular expression`);
  }
}

/** adapter_config.json's content for `s`, as peft writes it (LoraConfig's fields at their defaults otherwise), keys sorted. */
export function adapterConfigJson(s: LoraSettings): string {
  const config: Record<string, unknown> = {
    alpha_pattern: {},
    auto_mapping: null,
    base_model_name_or_path: s.baseModel,
    bias: 'none',
    exclude_modules: s.excludeModules,
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: s.initLoraWeights,
    layers_pattern: null,
    layers_to_transform: null,
    lora_alpha: s.loraAlpha,
    lora_bias: false,
    lora_dropout: s.loraDropout,
    modules_to_save: s.valueHead ? [VALUE_HEAD] : null,
    peft_type: 'LORA',
    r: s.r,
    rank_pattern: {},
    revision: null,
    target_modules: s.targetModules,
    task_type: s.valueHead ? 'TOKEN_CLS' : 'CAUSAL_LM',
    use_dora: false,
    use_rslora: s.useRslora,
  };
  return JSON.stringify(config, null, 2);
}
