// AdamW state <-> safetensors bytes, for trainer checkpoints: tensors
// `m.<param>` and `v.<param>`, and the update count in the metadata.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { toDevice, toHost, type HostParams, type Params } from '../model/params.ts';
import type { AdamState } from './optimizer.ts';
import { decodeSafetensors, encodeSafetensors } from '../weights/safetensors.ts';

/** `__metadata__.format` of optimizer state files. */
export const ADAM_STATE_FORMAT = 'rl-policy-adamw';

/** Serialises AdamW state (the device arrays stay alive). */
export async function encodeAdamState(state: Readonly<AdamState>): Promise<Uint8Array> {
  const tensors: HostParams = {};
  for (const [prefix, tree] of [
    ['m', state.m],
    ['v', state.v],
  ] as const) {
    for (const [name, t] of Object.entries(await toHost(tree))) tensors[`${prefix}.${name}`] = t;
  }
  return encodeSafetensors(tensors, { format: ADAM_STATE_FORMAT, step: String(state.step) });
}

/** Parses AdamW state and checks it matches `params` name for name and shape for shape. */
export function decodeAdamState(bytes: Uint8Array, params: Params): AdamState {
  const { tensors, metadata } = decodeSafetensors(bytes);
  const step = Number(metadata.step);
  if (metadata.format !== ADAM_STATE_FORMAT || !Number.isInteger(step) || step < 0) {
    throw new AppError(ErrorCode.ValidationFailed, `optimizer state: expected format ${ADAM_STATE_FORMAT} with an integer step`);
  }
  const m: HostParams = {};
  const v: HostParams = {};
  for (const [name, p] of Object.entries(params)) {
    for (const [prefix, into] of [
      ['m', m],
      ['v', v],
    ] as const) {
      const t = tensors[`${prefix}.${name}`];
      if (t === undefined || t.shape.join(',') !== p.shape.join(',')) {
        throw new AppError(ErrorCode.ValidationFailed, `optimizer state: ${prefix}.${name} is missing or has the wrong shape`);
      }
      into[name] = t;
    }
  }
  if (Object.keys(tensors).length !== 2 * Object.keys(params).length) {
    throw new AppError(ErrorCode.ValidationFailed, 'optimizer state: holds tensors the model does not have');
  }
  return { step, m: toDevice(m), v: toDevice(v) };
}
