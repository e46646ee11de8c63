// Validation (verl `_validate`): every validation row rolled out with
// val_kwargs (greedy by default), scored remotely, summarised as
// `val-core/<data_source>/<var>/mean@n` and friends.
import type { Dataset } from '../../data/index.ts';
import { validationBatches } from '../../data/index.ts';
import { computeValidationMetrics, type ValidationSample } from '../../metrics/index.ts';
import type { RewardClient } from '../../rewards/index.ts';
import type { RolloutPort, RolloutSampling } from './ports.ts';
import { scoreRollouts } from './step.ts';

export async function validate(
  data: Dataset, batchSize: number | null, rollout: RolloutPort, rewards: RewardClient,
  sampling: RolloutSampling, version: string, signal: AbortSignal,
): Promise<Record<string, number>> {
  const samples: ValidationSample[] = [];
  for (const rows of validationBatches(data, batchSize)) {
    const results = await rollout.rollout(rows, sampling, version, signal);
    for (const { rollout: r, result } of await scoreRollouts(rewards, rows, results, signal)) {
      samples.push({ data_source: rows[r.row]!.data_source, uid: r.uid, score: result.score ?? 0, extra: result.extra });
    }
  }
  return computeValidationMetrics(samples, { seed: 0 });
}
