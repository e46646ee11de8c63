// AdamW with global-norm gradient clipping (torch.optim.AdamW and
// torch.nn.utils.clip_grad_norm_ semantics, as verl's FSDP actor uses them).
import { z } from 'zod';
import { validationError } from '@rl/service-kit/core';
import { jit, np, tree, type Tensor } from '../model/backend.ts';
import type { Params } from '../model/params.ts';

/** Optimizer settings (verl's `actor_rollout_ref.actor.optim` names in camelCase). */
export const OptimizerConfig = z
  .object({
    lr: z.number().positive().finite(),
    /** @default [0.9, 0.999] */
    betas: z.tuple([z.number().min(0).lt(1), z.number().min(0).lt(1)]).default([0.9, 0.999]),
    /** @default 1e-8 */
    eps: z.number().positive().default(1e-8),
    /** Decoupled weight decay, applied to every parameter as torch's AdamW does. @default 0.01 */
    weightDecay: z.number().min(0).default(0.01),
    /** Clip the global gradient norm to this; 0 disables clipping. @default 1 */
    maxGradNorm: z.number().min(0).default(1),
  })
  .strict();
export type OptimizerConfig = z.output<typeof OptimizerConfig>;
export type OptimizerConfigInput = z.input<typeof OptimizerConfig>;

/** Validates optimizer settings; a bad one is a 400 naming the field. */
export function parseOptimizerConfig(input: unknown): OptimizerConfig {
  const parsed = OptimizerConfig.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error, 'optimizer config');
  return parsed.data;
}

/** Adam moments and the number of updates applied so far. */
export interface AdamState {
  step: number;
  m: Params;
  v: Params;
}

/** Zero moments shaped like `params`. */
export function zeroAdamState(params: Params): AdamState {
  const zeros = () => Object.fromEntries(Object.entries(params).map(([k, t]) => [k, np.zeros([...t.shape])]));
  return { step: 0, m: zeros(), v: zeros() };
}

// Compiled on first use: jax-js is loaded by ensureTensorBackend, after this module.
let treeKernels: { norm: (grads: Params) => Tensor; add: (a: Params, b: Params) => Params } | undefined;
function compiledTreeKernels() {
  treeKernels ??= {
    norm: jit((grads: Params) => {
      const parts = Object.values(grads).map((g) => np.sum(np.square(g)));
      return np.sqrt(parts.reduce((a, b) => a.add(b)));
    }),
    add: jit((a: Params, b: Params) => tree.map((x: Tensor, y: Tensor) => x.add(y), a, b) as Params),
  };
  return treeKernels;
}

/** Global L2 norm of a gradient tree, as a scalar tensor. */
export function globalNorm(grads: Params): Tensor {
  return compiledTreeKernels().norm(grads);
}

/** Elementwise sum of two trees of the same structure. */
export function addTrees(a: Params, b: Params): Params {
  return compiledTreeKernels().add(a, b);
}

/**
 * One AdamW update. `scalars` is `[lr, clipCoef, 1 - beta1^t, 1 - beta2^t]`
 * (inputs rather than constants, so a learning-rate schedule does not recompile).
 */
export function createAdamW(cfg: OptimizerConfig) {
  const [b1, b2] = cfg.betas;
  return jit((params: Params, grads: Params, m: Params, v: Params, scalars: Tensor) => {
    const lr = scalars.ref.slice(0);
    const clip = scalars.ref.slice(1);
    const bc1 = scalars.ref.slice(2);
    const bc2 = scalars.slice(3);
    const out: { params: Params; m: Params; v: Params } = { params: {}, m: {}, v: {} };
    for (const name of Object.keys(params)) {
      const g = (grads[name] as Tensor).mul(clip.ref);
      const m1 = (m[name] as Tensor).mul(b1).add(g.ref.mul(1 - b1));
      const v1 = (v[name] as Tensor).mul(b2).add(np.square(g).mul(1 - b2));
      const decayed = (params[name] as Tensor).mul(lr.ref.mul(-cfg.weightDecay).add(1));
      const update = m1.ref
        .div(bc1.ref)
        .div(np.sqrt(v1.ref.div(bc2.ref)).add(cfg.eps))
        .mul(lr.ref);
      out.params[name] = decayed.sub(update);
      out.m[name] = m1;
      out.v[name] = v1;
    }
    for (const t of [lr, clip, bc1, bc2]) t.dispose();
    return out;
  });
}

/** What {@link clippedAdamwStep} did: skipped (a non-finite norm; the gradients are freed), or the new parameters and state. */
export type ClippedStep = { gradNorm: number; skipped: true } | { gradNorm: number; skipped: false; params: Params; state: AdamState };

/**
 * torch's clip_grad_norm_ then AdamW.step on `params` (consumed, as are
 * `grads`): the global norm before clipping is reported, and a norm that is
 * not finite skips the update, as verl does. `lr` overrides the configured
 * rate (schedules).
 */
export async function clippedAdamwStep(
  adamw: ReturnType<typeof createAdamW>,
  cfg: OptimizerConfig,
  params: Params,
  grads: Params,
  state: AdamState,
  lr = cfg.lr,
): Promise<ClippedStep> {
  const gradNorm = Number((await globalNorm(tree.ref(grads)).data())[0]);
  if (!Number.isFinite(gradNorm)) {
    tree.dispose({ params, grads });
    return { gradNorm, skipped: true };
  }
  const t = state.step + 1;
  const clip = cfg.maxGradNorm > 0 ? Math.min(1, cfg.maxGradNorm / (gradNorm + 1e-6)) : 1;
  const scalars = np.array(new Float32Array([lr, clip, 1 - cfg.betas[0] ** t, 1 - cfg.betas[1] ** t]));
  const next = adamw(params, grads, state.m, state.v, scalars);
  return { gradNorm, skipped: false, params: next.params, state: { step: t, m: next.m, v: next.v } };
}
