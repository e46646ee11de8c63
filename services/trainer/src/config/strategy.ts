// verl's training strategy keys (actor_rollout_ref.actor.strategy,
// critic.strategy, the SFT trainer's model.strategy) choose the engine:
// verl's FSDP strategies are PyTorch, so they run on the PyTorch engine
// (shared/python/rl_torch_engine); "embedded" is the jax-js engine in the
// worker process, which needs no Python.
import type { EngineKind } from '@rl/policy';
import { oneOf } from './fields.ts';

export const STRATEGIES = ['embedded', 'fsdp', 'fsdp2'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** A strategy key: "embedded" (jax-js, no Python), "fsdp" or "fsdp2" (the PyTorch engine). */
export const strategy = () => oneOf(STRATEGIES);

/** The engine a strategy runs on. */
export function engineOf(s: Strategy): EngineKind {
  return s === 'embedded' ? 'jax' : 'torch';
}
