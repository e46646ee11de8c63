// Opens the engine a job chose for a model (worker-spec `engine`): the
// embedded jax-js engine, or the PyTorch engine as a child process. The
// worker holds the result as a TrainingEngine and never asks which it is.
import {
  LoraTrainer,
  loraTargets,
  PolicyTrainer,
  TorchTrainer,
  policyFromWeights,
  readAdapterDir,
  type EngineKind,
  type LoraAdapter,
  type LoraSettings,
  type PolicyWeights,
  type TrainingEngine,
} from '@rl/policy';
import type { LoraSpec, WorkerSpec } from './worker-spec.ts';

type Optim = WorkerSpec['optim'];

/** How a worker's models run (worker-spec `engine`). */
export interface EngineChoice {
  kind: EngineKind;
  gradientCheckpointing: boolean;
  /** Tokens per forward pass inside the torch engine (a micro-batch runs in parts of at most this); null: its default. */
  maxTokens: number | null;
  /** Processes of the torch engine. */
  worldSize: number;
  /** torch.compile where the torch engine runs on CUDA. */
  compile: boolean;
}

/** The torch engine's settings of a choice. */
function torchOptions(choice: EngineChoice) {
  return {
    gradientCheckpointing: choice.gradientCheckpointing,
    worldSize: choice.worldSize,
    compile: choice.compile,
    ...(choice.maxTokens !== null && { maxTokens: choice.maxTokens }),
  };
}

/** Trainable `weights` with AdamW as `optim` says, on the chosen engine. */
export async function openTrainingEngine(weights: PolicyWeights, optim: Optim, choice: EngineChoice): Promise<TrainingEngine> {
  const optimizer = { lr: optim.lr, betas: optim.betas, weightDecay: optim.weight_decay, maxGradNorm: optim.grad_clip };
  if (choice.kind === 'jax') return PolicyTrainer.create(weights, optimizer);
  return TorchTrainer.create(weights, optimizer, torchOptions(choice));
}

/** A frozen model that only scores (the reference policy). */
export type ScoringModel = Pick<TrainingEngine, 'score' | 'dispose' | 'failed'>;

/** `weights` frozen for scoring, on the chosen engine. */
export async function openScoringModel(weights: PolicyWeights, choice: EngineChoice): Promise<ScoringModel> {
  if (choice.kind === 'jax') return policyFromWeights(weights);
  // A child of its own that never steps (torch's AdamW allocates its moments at the first step).
  return TorchTrainer.create(weights, { lr: 1 }, { ...torchOptions(choice), gradientCheckpointing: false });
}

/** LoRA training on either engine: the adapters train, the base with the adapters off is the reference. */
export interface LoraEngine {
  trainer: TrainingEngine;
  /** The base model (no second copy of the weights: the trainer's own with its adapters off). */
  reference: ScoringModel;
  /** The adapter in PEFT's names and settings. */
  exportAdapter(): Promise<LoraAdapter>;
}

/** Where a LoRA trainer starts: a fresh adapter (seeded) or a saved one (a PEFT directory, resuming). */
export interface LoraStart {
  lora: LoraSpec;
  seed: number;
  /** A PEFT adapter directory to continue from; null: a fresh adapter (the model starts as the base). */
  adapterDir: string | null;
  /** base_model_name_or_path of exported adapters. */
  baseModel: string | null;
}

/** The key LoRA refusals name (a target that is not a module of the model, say). */
const LORA_KEY = 'actor_rollout_ref.model';

/** Opens LoRA training of the frozen `base` on the chosen engine. */
export async function openLoraEngine(base: PolicyWeights, optim: Optim, choice: EngineChoice, start: LoraStart): Promise<LoraEngine> {
  const { lora } = start;
  const settings = loraSettings(lora, start.baseModel);
  // Refused here, naming the job's key, before an engine starts (either engine would name its own file).
  loraTargets(base.config, settings, LORA_KEY);
  const optimizer = { lr: optim.lr, betas: optim.betas, weightDecay: optim.weight_decay, maxGradNorm: optim.grad_clip };
  if (choice.kind === 'jax') {
    const adapter = start.adapterDir === null ? undefined : await readAdapterDir(start.adapterDir);
    const trainer = await LoraTrainer.create(base, optimizer, settings, { seed: start.seed, ...(adapter !== undefined && { adapter }) });
    // Holds references to the trainer's base tensors, not a copy; disposed on its own.
    return {
      trainer,
      reference: trainer.reference('ref'),
      exportAdapter: () => trainer.exportAdapter(start.baseModel),
    };
  }
  const trainer = await TorchTrainer.create(base, optimizer, {
    ...torchOptions(choice),
    lora: { r: lora.rank, lora_alpha: lora.alpha, target_modules: lora.target_modules, seed: start.seed },
    ...(start.adapterDir !== null && { adapter: start.adapterDir }),
  });
  return {
    trainer,
    reference: {
      score: (pairs) => trainer.scoreBase(pairs),
      dispose: () => {}, // the trainer's child; the worker disposes the trainer
      get failed() {
        return trainer.failed;
      },
    },
    exportAdapter: () => trainer.exportAdapter(start.baseModel),
  };
}

/** peft's LoraConfig of the job's LoRA keys (no dropout, peft's default initialisation). */
function loraSettings(lora: LoraSpec, baseModel: string | null): LoraSettings {
  return {
    r: lora.rank,
    loraAlpha: lora.alpha,
    targetModules: lora.target_modules,
    excludeModules: null,
    useRslora: false,
    loraDropout: 0,
    initLoraWeights: true,
    valueHead: false,
    baseModel,
  };
}
