// Policy weights <-> one safetensors file (the object store's and single-file
// wire format). Tensors carry Hugging Face names; the metadata carries
// everything needed to rebuild the model: format, weights version, the model's
// config.json (toHfConfig) and the tokenizer config, as JSON strings since
// safetensors metadata values are strings.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AppError, ErrorCode, parseJsonText } from '@rl/service-kit/core';
import { policyFromWeights, type EmbeddedPolicy, type EmbeddedPolicyOptions, type PolicyWeights } from '../embedded-policy.ts';
import { parseHfConfig, toHfConfig } from '../hf/hf-config.ts';
import { isModelDir, loadModelDir } from '../hf/model-dir.ts';
import { checkHostParams } from '../model/params.ts';
import { decodeSafetensors, encodeSafetensors } from './safetensors.ts';
import { createTokenizer } from '../tokenizers/tokenizer.ts';

/** `__metadata__.format` of policy weight files. */
export const WEIGHTS_FORMAT = 'rl-policy';
/** `__metadata__.format_version`; bumped on incompatible layout changes. */
export const WEIGHTS_FORMAT_VERSION = '2';

/** Serialises weights as safetensors bytes. */
export function encodeWeights(w: PolicyWeights): Uint8Array {
  return encodeSafetensors(w.params, {
    format: WEIGHTS_FORMAT,
    format_version: WEIGHTS_FORMAT_VERSION,
    version: w.version,
    config: JSON.stringify(toHfConfig(w.config)),
    tokenizer_config: JSON.stringify(w.tokenizer),
  });
}

/**
 * Parses and validates safetensors bytes written by {@link encodeWeights}; a
 * bad file is a 400 naming the problem, prefixed with `source` (a file path, or 'weights').
 */
export function decodeWeights(bytes: Uint8Array, source = 'weights'): PolicyWeights {
  const { tensors, metadata } = decodeSafetensors(bytes, source);
  if (metadata.format !== WEIGHTS_FORMAT || metadata.format_version !== WEIGHTS_FORMAT_VERSION) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `${source}: __metadata__.format must be ${WEIGHTS_FORMAT} v${WEIGHTS_FORMAT_VERSION}, got ${metadata.format ?? '(none)'} v${metadata.format_version ?? '(none)'}`,
    );
  }
  const version = metadata.version;
  if (version === undefined || version === '') throw new AppError(ErrorCode.ValidationFailed, `${source}: __metadata__.version is missing`);
  const config = parseHfConfig(parseJsonText(metadata.config ?? '', `${source}: __metadata__.config`), `${source}: __metadata__.config`);
  const tokenizer = createTokenizer(parseJsonText(metadata.tokenizer_config ?? '', `${source}: __metadata__.tokenizer_config`));
  checkHostParams(config, tensors, source);
  return { version, config, tokenizer: tokenizer.config, params: tensors };
}

/** Writes weights to `path` (via a temporary file and rename, so readers never see half a file). */
export async function saveWeights(path: string, w: PolicyWeights): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, encodeWeights(w));
  await rename(tmp, path);
}

/** Reads weights from `path`. */
export async function loadWeights(path: string): Promise<PolicyWeights> {
  return decodeWeights(new Uint8Array(await readFile(path)), path);
}

/** Loads a ready-to-use policy from a weights file or a Hugging Face model directory. */
export async function loadPolicy(path: string, options: EmbeddedPolicyOptions = {}): Promise<EmbeddedPolicy> {
  return policyFromWeights((await isModelDir(path)) ? await loadModelDir(path) : await loadWeights(path), options);
}
