// Opens the engine a job chose for a model (worker-spec `engine`): the
// embedded jax-js engine, or the PyTorch engine as a child process. The
// worker holds the result as a TrainingEngine and never asks which it is.
import { PolicyTrainer, TorchTrainer, policyFromWeights, type EngineKind, type PolicyWeights, type TrainingEngine } from '@rl/policy';
import type { WorkerSpec } from './worker-spec.ts';

type Optim = WorkerSpec['optim'];

/** How a worker's models run (worker-spec `engine`). */
export interface EngineChoice {
  kind: EngineKind;
  gradientCheckpointing: boolean;
}

/** Trainable `weights` with AdamW as `optim` says, on the chosen engine. */
export async function openTrainingEngine(weights: PolicyWeights, optim: Optim, choice: EngineChoice): Promise<TrainingEngine> {
  const optimizer = { lr: optim.lr, betas: optim.betas, weightDecay: optim.weight_decay, maxGradNorm: optim.grad_clip };
  if (choice.kind === 'jax') return PolicyTrainer.create(weights, optimizer);
  return TorchTrainer.create(weights, optimizer, { gradientCheckpointing: choice.gradientCheckpointing });
}

/** A frozen model that only scores (the reference policy). */
export type ScoringModel = Pick<TrainingEngine, 'score' | 'dispose' | 'failed'>;

/** `weights` frozen for scoring, on the chosen engine. */
export async function openScoringModel(weights: PolicyWeights, choice: EngineChoice): Promise<ScoringModel> {
  if (choice.kind === 'jax') return policyFromWeights(weights);
  // A child of its own that never steps (torch's AdamW allocates its moments at the first step).
  return TorchTrainer.create(weights, { lr: 1 }, { gradientCheckpointing: false });
}
