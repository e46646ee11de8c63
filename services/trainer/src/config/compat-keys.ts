// verl keys a verl user's command line or YAML carries that change nothing
// here: they place work on GPUs or tune GPU memory, and the results are the
// same without them. They are accepted so a verl config runs as is, and a job
// that sets one says in its log that it was accepted and ignored, and why.
import type { z } from 'zod';

/** Key path -> why it has no effect here. */
export const COMPAT_KEYS = {
  'trainer.n_gpus_per_node': 'GPU placement: the policy worker is one process on this machine',
  'trainer.nnodes': 'node placement: the policy worker is one process on this machine',
  'trainer.logger': 'metrics always go to metrics.jsonl, the job events (SSE, NATS) and the plots',
  'actor_rollout_ref.rollout.name': 'the inference engine: rollouts come from the generation service, whose backend is its own setting',
  'actor_rollout_ref.rollout.gpu_memory_utilization': 'GPU memory of the inference engine',
  'actor_rollout_ref.rollout.tensor_model_parallel_size': 'GPU parallelism of the inference engine',
  'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu': 'how many sequences one GPU scores at once (memory, not results)',
  'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu': 'how many sequences one GPU scores at once (memory, not results)',
  'actor_rollout_ref.ref.fsdp_config.param_offload': 'FSDP CPU offload: the embedded model lives in CPU memory already',
  'actor_rollout_ref.actor.fsdp_config.param_offload': 'FSDP CPU offload: the embedded model lives in CPU memory already',
  'actor_rollout_ref.actor.fsdp_config.optimizer_offload': 'FSDP CPU offload: the optimizer state lives in CPU memory already',
  'actor_rollout_ref.model.enable_gradient_checkpointing': 'trades GPU memory for recomputation; the gradients are the same',
  'actor_rollout_ref.model.use_remove_padding': 'a packing optimisation of HF models; the results are the same',
  'model.enable_gradient_checkpointing': 'trades GPU memory for recomputation; the gradients are the same',
} as const;
/** A compatibility key path. */
export type CompatKey = keyof typeof COMPAT_KEYS;

/** A schema field for a compatibility key: optional, so the parsed config shows whether the user set it. */
export const ignored = <S extends z.ZodType>(schema: S) => schema.optional();

/** The compatibility keys set in a parsed config, each with its reason. */
export function compatKeysSet(config: unknown): Array<{ key: CompatKey; reason: string }> {
  const get = (path: string) =>
    path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), config);
  return (Object.keys(COMPAT_KEYS) as CompatKey[]).filter((k) => get(k) !== undefined).map((key) => ({ key, reason: COMPAT_KEYS[key] }));
}
