// The jitted training step both jax-js trainers run (full weights and LoRA's
// merged ones): a loss over the response columns and its gradient with
// respect to every weight, scaled, compiled once per loss and model config.
import type { OwnedFunction } from '@jax-js/jax';
import { jit, tree, valueAndGrad, type Tensor } from '../model/backend.ts';
import { responseStates } from '../model/kernels.ts';
import type { ModelConfig } from '../model/model-config.ts';
import type { Params } from '../model/params.ts';
import { lossInputs, type PolicyLoss } from './loss-inputs.ts';
import type { AccumulateResult } from './training-engine.ts';

/** `scale` x the loss, its metrics, and the gradient of the scaled loss for every weight. */
export type LossStep = OwnedFunction<
  (
    params: Params,
    prompt: Tensor,
    response: Tensor,
    positions: Tensor,
    keyMask: Tensor,
    mask: Tensor,
    inputs: Record<string, Tensor>,
    scale: Tensor,
  ) => { loss: Tensor; metrics: Record<string, Tensor>; grads: Params }
>;

/** Compiles `loss` into a training step for models of `cfg`. */
export function compileLossStep(cfg: ModelConfig, loss: PolicyLoss): LossStep {
  return jit((p: Params, prompt: Tensor, response: Tensor, positions: Tensor, keyMask: Tensor, mask: Tensor, inputs: Record<string, Tensor>, scale: Tensor) => {
    const objective = (params: Params): [Tensor, Record<string, Tensor>] => {
      const states = responseStates(cfg, params, prompt, response.ref, positions, keyMask);
      const li = lossInputs({ cfg, params, states }, response, mask, inputs);
      const res = loss(li);
      li.release();
      tree.dispose(params);
      return [res.loss.mul(scale), res.metrics ?? {}];
    };
    const [[value, metrics], grads] = valueAndGrad(objective, { hasAux: true })(p);
    return { loss: value, metrics, grads };
  });
}

/** A step's loss (unscaled) and metrics as numbers. */
export async function stepResult(out: { loss: Tensor; metrics: Record<string, Tensor> }, scale: number): Promise<AccumulateResult> {
  const metrics: Record<string, number> = {};
  for (const [k, t] of Object.entries(out.metrics)) metrics[k] = Number((await t.data())[0]);
  return { loss: Number((await out.loss.data())[0]) / scale, metrics };
}
