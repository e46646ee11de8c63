// A LoRA adapter version as one object-store object: PEFT's
// adapter_model.safetensors with adapter_config.json and the version in its
// metadata. The bytes are a valid adapter_model.safetensors as they are (peft
// and vLLM ignore metadata they do not know), so a reader writes them out
// unchanged beside the config and hands the directory to vLLM.
import type { ObjectInfo, ObjectStore } from '@nats-io/obj';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { HostParams } from '../model/params.ts';
import { decodeSafetensors, encodeSafetensors } from './safetensors.ts';

/** `__metadata__.rl_adapter` of adapter objects (their `format` stays PEFT's `pt`). */
export const ADAPTER_OBJECT_FORMAT = '1';

/** An adapter version read from its object: what a PEFT adapter directory holds. */
export interface AdapterObject {
  version: string;
  /** adapter_config.json's text. */
  adapterConfig: string;
  /** adapter_model.safetensors's bytes. */
  weightsFile: Uint8Array;
}

/** Encodes an adapter (its adapter_config.json text and tensors under peft's saved names) as `version`. */
export function encodeAdapterObject(adapter: { adapterConfig: string; tensors: HostParams }, version: string): Uint8Array {
  return encodeSafetensors(adapter.tensors, { format: 'pt', rl_adapter: ADAPTER_OBJECT_FORMAT, version, adapter_config: adapter.adapterConfig });
}

/** Reads an adapter object; a bad one is a 400 naming `source` and the missing field. */
export function decodeAdapterObject(bytes: Uint8Array, source: string): AdapterObject {
  const { metadata } = decodeSafetensors(bytes, source);
  if (metadata.rl_adapter !== ADAPTER_OBJECT_FORMAT) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `${source}: __metadata__.rl_adapter must be ${ADAPTER_OBJECT_FORMAT}, got ${metadata.rl_adapter ?? '(none)'}`,
    );
  }
  const { version, adapter_config: adapterConfig } = metadata;
  if (version === undefined || version === '') throw new AppError(ErrorCode.ValidationFailed, `${source}: __metadata__.version is missing`);
  if (adapterConfig === undefined) throw new AppError(ErrorCode.ValidationFailed, `${source}: __metadata__.adapter_config is missing`);
  return { version, adapterConfig, weightsFile: bytes };
}

/** Publishes an adapter as `version` under `name` (the object's metadata carries the version too). */
export async function publishAdapter(
  os: ObjectStore,
  name: string,
  adapter: { adapterConfig: string; tensors: HostParams },
  version: string,
): Promise<ObjectInfo> {
  return os.putBlob({ name, description: `policy LoRA adapter ${version}`, metadata: { version } }, encodeAdapterObject(adapter, version));
}
