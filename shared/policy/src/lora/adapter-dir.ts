// PEFT adapter directories: adapter_config.json and adapter_model.safetensors
// (F32, metadata {format: pt}), the files peft's save_pretrained writes and
// peft, vLLM and the torch engine load.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { readSafetensors, writeSafetensors } from '../weights/safetensors.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, adapterConfigJson, parseAdapterConfig } from './adapter-config.ts';
import type { LoraAdapter } from './lora-adapter.ts';

/** An adapter read from a directory, with the path of its config (checks against a model name it). */
export interface AdapterDir extends LoraAdapter {
  configFile: string;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Reads an adapter directory; its tensors are checked against a model when it is merged or loaded. */
export async function readAdapterDir(dir: string): Promise<AdapterDir> {
  const configFile = join(dir, ADAPTER_CONFIG_FILE);
  if (!(await isFile(configFile))) throw new AppError(ErrorCode.NotFound, `${dir}: not a PEFT adapter directory (no ${ADAPTER_CONFIG_FILE})`);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(configFile, 'utf8'));
  } catch {
    throw new AppError(ErrorCode.ValidationFailed, `${configFile}: (root): not valid JSON`);
  }
  const settings = parseAdapterConfig(json, configFile);
  const source = join(dir, ADAPTER_WEIGHTS_FILE);
  if (!(await isFile(source))) {
    const pickled = await isFile(join(dir, 'adapter_model.bin'));
    throw new AppError(
      ErrorCode.ValidationFailed,
      `${dir}: no ${ADAPTER_WEIGHTS_FILE}${pickled ? ' (adapter_model.bin is not read: save the adapter with safe_serialization)' : ''}`,
    );
  }
  const { tensors } = await readSafetensors(source);
  return { settings, tensors, source, configFile };
}

/** Writes `adapter` as a PEFT adapter directory at `dir` (created if missing); each file is written beside its name and renamed into place. */
export async function writeAdapterDir(dir: string, adapter: LoraAdapter): Promise<void> {
  await mkdir(dir, { recursive: true });
  const weights = join(dir, ADAPTER_WEIGHTS_FILE);
  const config = join(dir, ADAPTER_CONFIG_FILE);
  const tmp = `.tmp-${process.pid}`;
  try {
    await writeSafetensors(`${weights}${tmp}`, adapter.tensors, { format: 'pt' });
    await writeFile(`${config}${tmp}`, adapterConfigJson(adapter.settings));
    await rename(`${weights}${tmp}`, weights);
    await rename(`${config}${tmp}`, config);
  } finally {
    await rm(`${weights}${tmp}`, { force: true });
    await rm(`${config}${tmp}`, { force: true });
  }
}
