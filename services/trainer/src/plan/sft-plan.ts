// Everything an SFT job runs with, derived from its validated config and what
// the tokenizer and weights resolution found. Pure, like rl-plan.ts: the
// adapter (run-sft-job.ts) executes it and a test walks every key through it.
import { resolve } from 'node:path';
import type { TokenizerConfig } from '@rl/policy';
import { engineOf } from '../config/strategy.ts';
import type { SftJobConfig } from '../config/index.ts';
import type { LrSchedulerKind } from '../core/lr-schedule.ts';
import type { SftColumns, Truncation } from '../data/index.ts';
import type { WorkerSpec } from '../policy/worker-spec.ts';
import { workerTimeouts, type WorkerTimeouts } from './rl-plan.ts';

/** What the adapter learned before planning. */
export interface SftFacts {
  baseDir: string;
  tokenizer: TokenizerConfig;
  /** model.partial_pretrain resolved to a model directory; null for random init. */
  modelDir: string | null;
}

/** The whole plan of an SFT job. */
export interface SftJobPlan {
  name: string;
  dir: string;
  spec: Omit<WorkerSpec, 'job'>;
  data: { train: string[]; val: string[]; trainMaxSamples: number; valMaxSamples: number; columns: SftColumns; maxLength: number; truncation: Truncation };
  batchSize: number;
  microBatchSize: number;
  seed: number;
  schedule: { kind: LrSchedulerKind; peakLr: number; warmupRatio: number };
  totalEpochs: number;
  /** null: steps per epoch × total_epochs. */
  totalSteps: number | null;
  testFreq: number;
  saveFreq: number;
  valBeforeTrain: boolean;
  resume: boolean;
  /** Deadlines of the policy worker's calls (trainer.worker_*_timeout_ms). */
  workerTimeouts: WorkerTimeouts;
}

/** Plans an SFT job. */
export function planSftJob(c: SftJobConfig, f: SftFacts): SftJobPlan {
  const path = (p: string) => resolve(f.baseDir, p);
  const { data: d, model: m, optim: o, trainer: t } = c;
  const processes = engineOf(m.strategy) === 'torch' ? t.n_gpus_per_node : 1;
  return {
    name: t.experiment_name,
    dir: path(t.default_local_dir),
    spec: {
      model: {
        tokenizer: f.tokenizer,
        architecture: m.architecture,
        d_model: m.d_model,
        n_layers: m.n_layers,
        n_heads: m.n_heads,
        n_kv_heads: m.n_kv_heads,
        head_dim: m.head_dim,
        d_ff: m.d_ff,
        max_seq_len: m.max_seq_len,
        seed: m.seed,
        path: f.modelDir,
      },
      engine: {
        kind: engineOf(m.strategy),
        gradient_checkpointing: m.enable_gradient_checkpointing,
        max_tokens: null,
        world_size: processes,
        compile: m.use_torch_compile,
      },
      optim: { lr: o.lr, weight_decay: o.weight_decay, betas: o.betas, grad_clip: o.clip_grad },
      // An SFT job publishes nothing; the name only keeps two jobs' objects apart.
      weights: { bucket: 'rl-policy', name: `sft-${t.experiment_name}` },
    },
    data: {
      train: d.train_files.map(path),
      val: d.val_files.map(path),
      trainMaxSamples: d.train_max_samples,
      valMaxSamples: d.val_max_samples,
      columns: {
        promptKey: d.prompt_key,
        responseKey: d.response_key,
        promptDictKeys: d.prompt_dict_keys ?? [],
        responseDictKeys: d.response_dict_keys ?? [],
        messagesKey: d.multiturn.enable ? d.multiturn.messages_key : null,
      },
      maxLength: d.max_length,
      truncation: d.truncation,
    },
    batchSize: d.train_batch_size,
    // Per GPU, as verl counts it: a pass of N engine processes takes N times as many sequences.
    microBatchSize: Math.min(d.micro_batch_size_per_gpu * processes, d.train_batch_size),
    seed: t.seed,
    schedule: { kind: o.lr_scheduler, peakLr: o.lr, warmupRatio: o.lr_warmup_steps_ratio },
    totalEpochs: t.total_epochs,
    totalSteps: t.total_training_steps,
    testFreq: t.test_freq,
    saveFreq: t.save_freq,
    valBeforeTrain: t.val_before_train,
    resume: t.resume_mode === 'auto',
    workerTimeouts: workerTimeouts(t),
  };
}
