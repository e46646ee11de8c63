// Validation (verl `_validate`): every validation row rolled out with
// val_kwargs (greedy by default), scored remotely, summarised as
// `val-core/<data_source>/<var>/mean@n` and friends; optionally dumped.
import type { Dataset } from '../../data/dataset.ts';
// Pure modules, not the data and metrics barrels (they also hold file I/O).
import { validationBatches } from '../../data/batch-sampler.ts';
import { computeValidationMetrics, type ValidationSample } from '../../metrics/validation-metrics.ts';
import type { RewardClient } from '@rl/client';
import { dumpEntry, type DumpEntry, type GenerationDump } from './generation-dump.ts';
import type { RolloutPort, RolloutSampling } from './ports.ts';
import { scoreRollouts } from './reward-stage.ts';

/** What one validation pass needs. */
export interface ValidateInput {
  data: Dataset;
  batchSize: number | null;
  rollout: RolloutPort;
  rewards: RewardClient;
  sampling: RolloutSampling;
  version: string;
  signal: AbortSignal;
  /** Step the pass belongs to (0 = before training). */
  step: number;
  /** trainer.validation_data_dir: where the generations go, with the prompt decoder. */
  dump?: { sink: GenerationDump; decode(ids: readonly number[]): string };
}

export async function validate(v: ValidateInput): Promise<Record<string, number>> {
  const samples: ValidationSample[] = [];
  const dumped: DumpEntry[] = [];
  for (const rows of validationBatches(v.data, v.batchSize)) {
    const results = await v.rollout.rollout(rows, v.sampling, v.version, v.signal);
    for (const { rollout: r, result } of await scoreRollouts(v.rewards, rows, results, v.signal)) {
      const row = rows[r.row]!;
      const score = result.score ?? 0;
      samples.push({ data_source: row.data_source, uid: r.uid, score, extra: result.extra });
      if (v.dump !== undefined) dumped.push(dumpEntry(v.dump.decode(r.promptIds), r.text, row.ground_truth, score, v.step, result.extra));
    }
  }
  if (v.dump !== undefined) await v.dump.sink.write(v.step, dumped);
  return computeValidationMetrics(samples, { seed: 0 });
}
