// The numpy reference forward pass (shared/policy/src/model/reference/hf_forward.py,
// written from transformers' definitions, independent of every engine) over a
// reward-model directory's weights: the one-label head at every position.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeSafetensors, type HostParams } from '@rl/policy';

const REFERENCE = fileURLToPath(import.meta.resolve('@rl/policy/testing').replace(/testing\/index\.ts$/, 'model/reference/hf_forward.py'));

/** The head's value at every position of each sequence, each run alone and unpadded; `dir` holds config.json and gets the request files. */
export function referenceValues(dir: string, params: HostParams, sequences: number[][]): number[][] {
  const f32 = join(dir, 'reference.safetensors');
  const request = join(dir, 'request.json');
  writeFileSync(f32, encodeSafetensors(params));
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as unknown;
  writeFileSync(request, JSON.stringify({ config, sequences }));
  const out = JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE, f32, request], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 })) as {
    values: number[][];
  };
  return out.values;
}
