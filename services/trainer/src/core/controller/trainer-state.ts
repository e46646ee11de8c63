// What a checkpoint records of the controller (next to the policy worker's
// weights and optimizer state): where the data sampler is, the in-reward KL
// coefficient, the step and the weights version.
import { z } from 'zod';
import { SamplerState } from '../../data/batch-sampler.ts';

export const TrainerState = z.object({
  step: z.number().int().min(0),
  sampler: SamplerState,
  kl_coef: z.number().nullable(),
  version: z.string(),
});
export type TrainerState = z.infer<typeof TrainerState>;

/** Where checkpoints live; the file-system store is in adapters/checkpoint-store.ts. */
export interface CheckpointStore {
  /** Directory the policy worker writes step `step`'s models into (the step directory: actor/, critic/). */
  workerDir(step: number): string;
  /** Records the controller state of a checkpoint whose models are in place and marks it the latest; returns its directory. */
  commit(state: TrainerState): Promise<string>;
  /** The newest complete checkpoint, or null. */
  latest(): Promise<TrainerState | null>;
}
