// A critic from a policy's weights (verl builds its critic from the actor's
// checkpoint as AutoModelForTokenClassification with one label): the same
// transformer plus a scalar head `value_head [D, 1]`, initialised N(0, 0.02)
// from a seed like every other projection.
import { AppError, ErrorCode, createRng } from '@rl/service-kit/core';
import type { PolicyWeights } from '../embedded-policy.ts';
import { parseModelConfig } from './model-config.ts';
import { gaussian } from './params.ts';

/** `weights` with a freshly initialised value head (the language-model weights are shared, not copied). */
export function withValueHead(weights: PolicyWeights, seed: number): PolicyWeights {
  if (weights.config.valueHead) throw new AppError(ErrorCode.BadRequest, 'these weights already have a value head');
  const config = parseModelConfig({ ...weights.config, valueHead: true });
  const rng = createRng(seed);
  const data = new Float32Array(config.dModel);
  for (let i = 0; i < data.length; i++) data[i] = gaussian(rng) * 0.02;
  return { ...weights, config, params: { ...weights.params, value_head: { shape: [config.dModel, 1], data } } };
}
