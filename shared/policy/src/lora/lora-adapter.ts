// A LoRA adapter on a model of the family: which Linear modules it targets
// (peft's matching rules), the tensors it must hold under peft's saved names,
// and merging it into the base weights.
import { AppError, ErrorCode, getOwn } from '@rl/service-kit/core';
import type { ModelConfig } from '../model/model-config.ts';
import { type HostParams, type HostTensor, paramShapes } from '../model/params.ts';
import { ADAPTER_WEIGHTS_FILE, ALL_LINEAR, type LoraSettings, type ModuleNames, loraScaling, VALUE_HEAD } from './adapter-config.ts';

/** Every saved tensor's name starts with PeftModel.base_model (LoraModel) .model: the transformers model. */
export const PEFT_PREFIX = 'base_model.model.';
/** Linear modules that are heads, not layers: "all-linear" leaves them out and a target may not name them. */
const HEADS: ReadonlySet<string> = new Set(['lm_head', VALUE_HEAD]);

/** An adapter: its settings and its tensors under peft's saved names. */
export interface LoraAdapter {
  settings: LoraSettings;
  tensors: HostParams;
  /** Where the tensors came from, for error messages. @default adapter_model.safetensors */
  source?: string;
}

const invalid = (message: string) => new AppError(ErrorCode.ValidationFailed, message);

/** The Linear modules of a model (name -> [out, in]), in parameter order. */
function linearModules(config: ModelConfig): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const [name, shape] of paramShapes(config)) {
    if (name.endsWith('.weight') && shape.length === 2 && name !== 'model.embed_tokens.weight') {
      out.set(name.slice(0, -'.weight'.length), [shape[0] as number, shape[1] as number]);
    }
  }
  return out;
}

/** peft's check_target_module_exists: a string fully matches as a regular expression; a list entry matches the name or a dot-separated suffix. */
function matches(name: string, names: ModuleNames): boolean {
  if (typeof names === 'string') return new RegExp(`^(?:${names})$`).test(name);
  return names.some((n) => name === n || name.endsWith(`.${n}`));
}

const leafNames = (names: string[]) => [...new Set(names.map((n) => n.slice(n.lastIndexOf('.') + 1)))].sort().join(', ');

/**
 * The modules `s` adapts on a model of `config`, in model order; a list entry
 * that is no module of the model, a head, or a selection of nothing is an
 * error naming `file` and the key.
 */
export function loraTargets(config: ModelConfig, s: Pick<LoraSettings, 'targetModules' | 'excludeModules'>, file: string): string[] {
  const linears = [...linearModules(config).keys()];
  const layers = linears.filter((n) => !HEADS.has(n));
  const targets = s.targetModules;
  let chosen: string[];
  if (typeof targets === 'string' && targets.toLowerCase() === ALL_LINEAR) chosen = layers;
  else {
    chosen = linears.filter((n) => matches(n, targets));
    const head = chosen.find((n) => HEADS.has(n));
    if (head !== undefined) throw invalid(`${file}: target_modules: selects the head ${head}; LoRA applies to the decoder layers' Linear modules only`);
    if (Array.isArray(targets)) {
      for (const t of targets) {
        if (!linears.some((n) => matches(n, [t]))) {
          throw invalid(`${file}: target_modules: ${JSON.stringify(t)} is not a module of the model (its Linear modules end in ${leafNames(layers)})`);
        }
      }
    }
  }
  const exclude = s.excludeModules;
  if (exclude !== null) chosen = chosen.filter((n) => !matches(n, exclude));
  if (chosen.length === 0) throw invalid(`${file}: target_modules: selects no module of the model (its Linear modules end in ${leafNames(layers)})`);
  return chosen;
}

/**
 * The targets as an exported adapter_config.json records them: the modules' last names when those select exactly
 * the same modules (peft's shortening of a long target list), else the full names.
 */
export function resolvedTargets(config: ModelConfig, s: Pick<LoraSettings, 'targetModules' | 'excludeModules'>, file: string): string[] {
  const chosen = loraTargets(config, s, file);
  const leaves = [...new Set(chosen.map((n) => n.slice(n.lastIndexOf('.') + 1)))].sort();
  return loraTargets(config, { targetModules: leaves, excludeModules: null }, file).length === chosen.length ? leaves : chosen;
}

/** The tensors an adapter with `settings` holds on a model of `config`: peft name -> shape. */
export function adapterShapes(config: ModelConfig, settings: LoraSettings, file: string): Map<string, number[]> {
  const modules = linearModules(config);
  const out = new Map<string, number[]>();
  for (const name of loraTargets(config, settings, file)) {
    const [outDim, inDim] = modules.get(name) as [number, number];
    out.set(`${PEFT_PREFIX}${name}.lora_A.weight`, [settings.r, inDim]);
    out.set(`${PEFT_PREFIX}${name}.lora_B.weight`, [outDim, settings.r]);
  }
  if (settings.valueHead) {
    if (!config.valueHead) throw invalid(`${file}: modules_to_save: the adapter carries a value head ("${VALUE_HEAD}"), the model has none`);
    out.set(`${PEFT_PREFIX}${VALUE_HEAD}.weight`, [1, config.dModel]);
    out.set(`${PEFT_PREFIX}${VALUE_HEAD}.bias`, [1]);
  }
  return out;
}

/** Checks that the adapter holds exactly the tensors its settings give on a model of `config`, with their shapes. */
export function checkAdapter(config: ModelConfig, adapter: LoraAdapter, configFile: string): void {
  const source = adapter.source ?? ADAPTER_WEIGHTS_FILE;
  const expected = adapterShapes(config, adapter.settings, configFile);
  for (const [name, shape] of expected) {
    const t = getOwn(adapter.tensors, name);
    if (t === undefined) throw invalid(`${source}: ${name}: tensor missing from the adapter`);
    if (t.shape.join(',') !== shape.join(',')) throw invalid(`${source}: ${name}: shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
  }
  const extra = Object.keys(adapter.tensors)
    .filter((n) => !expected.has(n))
    .sort()[0];
  if (extra !== undefined) throw invalid(`${source}: ${extra}: tensor the adapter's config does not target`);
}

/**
 * The weights with the adapter merged: every targeted Linear's weight W
 * [out, in] becomes W + scaling * B A (and a critic's value head the
 * adapter's). The adapter is checked first; `weights` is not modified.
 */
export function mergeAdapter<W extends { config: ModelConfig; params: HostParams }>(weights: W, adapter: LoraAdapter, configFile = 'adapter_config.json'): W {
  checkAdapter(weights.config, adapter, configFile);
  const { settings, tensors } = adapter;
  const scaling = loraScaling(settings);
  const params: HostParams = { ...weights.params };
  for (const name of loraTargets(weights.config, settings, configFile)) {
    const key = `${name}.weight`;
    params[key] = plusLowRank(
      weights.params[key] as HostTensor,
      tensors[`${PEFT_PREFIX}${name}.lora_B.weight`] as HostTensor,
      tensors[`${PEFT_PREFIX}${name}.lora_A.weight`] as HostTensor,
      scaling,
    );
  }
  if (settings.valueHead) {
    for (const p of ['weight', 'bias']) params[`${VALUE_HEAD}.${p}`] = tensors[`${PEFT_PREFIX}${VALUE_HEAD}.${p}`] as HostTensor;
  }
  return { ...weights, params };
}

/** W + scaling * B A (B [out, r], A [r, in]), each row accumulated in float64 and rounded once. */
function plusLowRank(w: HostTensor, b: HostTensor, a: HostTensor, scaling: number): HostTensor {
  const [outDim, r] = b.shape as [number, number];
  const inDim = a.shape[1] as number;
  const data = new Float32Array(outDim * inDim);
  const row = new Float64Array(inDim);
  for (let o = 0; o < outDim; o++) {
    row.fill(0);
    for (let k = 0; k < r; k++) {
      const bk = (b.data[o * r + k] as number) * scaling;
      if (bk === 0) continue;
      const at = k * inDim;
      for (let i = 0; i < inDim; i++) row[i] = (row[i] as number) + bk * (a.data[at + i] as number);
    }
    const at = o * inDim;
    for (let i = 0; i < inDim; i++) data[at + i] = (w.data[at + i] as number) + (row[i] as number);
  }
  return { shape: [...w.shape], data };
}
