// The admin calls that make an inference server serve a policy version written
// to disk, in each server's own HTTP API.
import { AppError, ErrorCode } from '@rl/service-kit';
import { z } from 'zod';
import type { HttpJsonClient } from '../http-json.ts';

/** Ways a version reaches the server (`INFERENCE_SYNC`). */
export type SyncKind = 'sglang' | 'vllm' | 'vllm-lora';

/** An inference server that loads versions from disk. */
export interface SyncTarget {
  /** What the server reads: a Hugging Face model directory or a PEFT adapter directory. */
  readonly artifact: 'hf-model' | 'peft-adapter';
  /** Full weights are replaced in place: no request may run on the old version while they load. */
  readonly exclusive: boolean;
  /**
   * Makes the server serve the files in `dir` as `version`; resolves with the model name requests ask for. `seq`
   * numbers this service's loads: a version string may come again (a resumed job republishes its checkpoint's).
   */
  load(version: string, dir: string, seq: number): Promise<string>;
  /** `model` (a version `load` answered) is requested no more. */
  unload(model: string): Promise<void>;
}

/** Where and how the target reaches the server. */
export interface SyncTargetOptions {
  /** Server root, without `/v1`. */
  root: string;
  /** The base model name the server serves (`OPENAI_MODEL`). */
  model: string;
  post: HttpJsonClient;
}

/** SGLang `POST /update_weights_from_disk`: 200 `{success: true, message}`, 400 `{success: false, message}`. */
const SglangReply = z.looseObject({ success: z.boolean(), message: z.string().optional() });
/** vLLM answers these admin calls with plain text, an empty body or `{results}`: success is the 2xx itself. */
const AnyReply = z.unknown();

function sglang(o: SyncTargetOptions): SyncTarget {
  const url = `${o.root}/update_weights_from_disk`;
  return {
    artifact: 'hf-model',
    exclusive: true,
    async load(_version, dir) {
      const reply = await o.post(url, { model_path: dir }, SglangReply);
      if (!reply.success) throw new AppError(ErrorCode.UpstreamError, `${url}: the server did not load ${dir}: ${reply.message ?? 'no message'}`);
      return o.model;
    },
    unload: async () => {},
  };
}

/**
 * vLLM full weights: the worker's `reload_weights` reads the directory given
 * as `weights_path` (reachable over HTTP as `/collective_rpc`, served with
 * VLLM_SERVER_DEV_MODE=1), then the prefix cache is dropped, since its KV
 * blocks were computed by the old weights.
 */
function vllm(o: SyncTargetOptions): SyncTarget {
  return {
    artifact: 'hf-model',
    exclusive: true,
    async load(_version, dir) {
      await o.post(`${o.root}/collective_rpc`, { method: 'reload_weights', kwargs: { weights_path: dir } }, AnyReply);
      await o.post(`${o.root}/reset_prefix_cache`, {}, AnyReply);
      return o.model;
    },
    unload: async () => {},
  };
}

/** vLLM's name for a version's adapter (what rollouts ask for as `model`): one per load, never two versions'. */
function adapterName(model: string, version: string, seq: number): string {
  return `${model}@${version}#${seq}`;
}

/**
 * vLLM LoRA: each version is a new adapter (`POST /v1/load_lora_adapter`,
 * served with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True) beside the ones still in
 * use; a superseded one is unloaded once no trajectory holds it.
 */
function vllmLora(o: SyncTargetOptions): SyncTarget {
  const unload = async (name: string) => {
    try {
      await o.post(`${o.root}/v1/unload_lora_adapter`, { lora_name: name }, AnyReply);
    } catch (err) {
      if (!(err instanceof AppError && /HTTP 404/.test(err.message))) throw err;
    }
  };
  return {
    artifact: 'peft-adapter',
    exclusive: false,
    async load(version, dir, seq) {
      const name = adapterName(o.model, version, seq);
      const body = { lora_name: name, lora_path: dir };
      try {
        await o.post(`${o.root}/v1/load_lora_adapter`, body, AnyReply);
      } catch (err) {
        if (!(err instanceof AppError && /already been loaded/.test(err.message))) throw err;
        // The name is taken by this load's first attempt (its answer lost) or by an adapter an earlier run of this
        // service left on the server: either way the server must serve `dir` under it.
        await unload(name);
        await o.post(`${o.root}/v1/load_lora_adapter`, body, AnyReply);
      }
      return name;
    },
    unload,
  };
}

/** The target `INFERENCE_SYNC` names. */
export function createSyncTarget(kind: SyncKind, o: SyncTargetOptions): SyncTarget {
  if (kind === 'sglang') return sglang(o);
  if (kind === 'vllm') return vllm(o);
  return vllmLora(o);
}
