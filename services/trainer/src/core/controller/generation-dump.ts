// verl's generation dumps (RayPPOTrainer._dump_generations): with
// trainer.validation_data_dir / rollout_data_dir set, each validation (or
// training step) writes `<dir>/<step>.jsonl`, one line per sample with the
// decoded input, the output, the ground truth, the score, the step and every
// key of the reward's extra. The writer is a port; the file system one is in
// adapters/.
import { setOwn } from '@rl/service-kit/core';
import type { JsonValue } from '../../data/dataset-row.ts';

/** One dumped sample. */
export interface DumpEntry {
  input: string;
  output: string;
  gts: JsonValue;
  score: number;
  step: number;
  [extra: string]: unknown;
}

/** Writes the dumps of one kind (validation or rollout). */
export interface GenerationDump {
  write(step: number, entries: readonly DumpEntry[]): Promise<void>;
}

/** verl's entry: the fixed keys, then the reward's extra keys (which never override them). */
export function dumpEntry(input: string, output: string, gts: JsonValue, score: number, step: number, extra: Record<string, unknown> | undefined): DumpEntry {
  const entry: DumpEntry = { input, output, gts, score, step };
  for (const [k, v] of Object.entries(extra ?? {})) if (!Object.hasOwn(entry, k)) setOwn(entry, k, v);
  return entry;
}
