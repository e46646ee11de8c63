// REWARD_MODELS: the reward models the service loads at start-up,
// `name=DIR[,name=DIR]`, a DIR prefixed with `torch:`, `onnx:` (its
// `model.onnx` on onnxruntime) or `jax:` (the default) choosing the engine, or `name=vllm:http://host:port/SERVED_NAME?tokenizer=DIR`
// for a vLLM server's `/classify` (DIR: the reward model's tokenizer and chat
// template, which verl reads locally from the model path to render each item).
import { z } from 'zod';

/** One reward model on a local engine. */
export interface LocalRewardModelSpec {
  name: string;
  dir: string;
  engine: 'jax' | 'torch' | 'onnx';
}

/** One reward model served by vLLM: `url` is its `/classify`, `model` the served name sent as `model`. */
export interface VllmRewardModelSpec {
  name: string;
  /** The tokenizer directory (tokenizer files and config.json). */
  dir: string;
  engine: 'vllm';
  url: string;
  model: string;
}

/** One configured reward model. */
export type RewardModelSpec = LocalRewardModelSpec | VllmRewardModelSpec;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `http://host:port/SERVED_NAME?tokenizer=DIR` as a vLLM spec, or the reason it is not one. */
function vllmTarget(text: string): { url: string; model: string; dir: string } | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${JSON.stringify(text)}: expected an http(s) URL`;
  if (url.username !== '' || url.password !== '') return `${JSON.stringify(text)}: credentials in the URL are not supported`;
  const model = decodeURIComponent(url.pathname.slice(1));
  const dir = url.searchParams.get('tokenizer') ?? '';
  if (model === '') return `${JSON.stringify(text)}: the path names the served model (http://host:port/SERVED_NAME)`;
  if (dir === '') return `${JSON.stringify(text)}: ?tokenizer=DIR names the reward model's tokenizer directory (its chat template renders each item)`;
  return { url: `${url.origin}/classify`, model, dir };
}

/** Parses REWARD_MODELS (empty: none); a malformed entry is an issue naming it. */
export const RewardModelsEnv = z
  .string()
  .default('')
  .transform((text, ctx): RewardModelSpec[] => {
    const specs: RewardModelSpec[] = [];
    for (const entry of text.split(',').map((e) => e.trim())) {
      if (entry === '') continue;
      const eq = entry.indexOf('=');
      const name = eq < 0 ? '' : entry.slice(0, eq);
      let dir = eq < 0 ? '' : entry.slice(eq + 1);
      if (!NAME.test(name) || dir === '') {
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(entry)}: each entry is name=DIR, name=torch:DIR, name=onnx:DIR or name=vllm:URL (name: letters, digits, . _ -)`,
        });
        return z.NEVER;
      }
      if (specs.some((s) => s.name === name)) {
        ctx.addIssue({ code: 'custom', message: `${name}: named twice` });
        return z.NEVER;
      }
      if (dir.startsWith('vllm:')) {
        const target = vllmTarget(dir.slice('vllm:'.length));
        if (typeof target === 'string') {
          ctx.addIssue({ code: 'custom', message: `${name}: ${target}` });
          return z.NEVER;
        }
        specs.push({ name, engine: 'vllm', ...target });
        continue;
      }
      let engine: LocalRewardModelSpec['engine'] = 'jax';
      const prefix = /^(jax|torch|onnx):/.exec(dir);
      if (prefix !== null) {
        engine = prefix[1] as LocalRewardModelSpec['engine'];
        dir = dir.slice(prefix[0].length);
      }
      if (dir === '') {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry)}: each entry is name=DIR, name=torch:DIR, name=onnx:DIR or name=vllm:URL` });
        return z.NEVER;
      }
      specs.push({ name, dir, engine });
    }
    return specs;
  });
