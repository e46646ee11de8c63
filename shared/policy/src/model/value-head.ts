// A critic from a policy's weights (verl builds its critic from the actor's
// checkpoint as AutoModelForTokenClassification with one label): the same
// transformer plus transformers' one-label `score` Linear (weight [1, D],
// bias [1]), the weight initialised N(0, 0.02) from a seed like every other
// projection and the bias 0.
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
  const score = { 'score.weight': { shape: [1, config.dModel], data }, 'score.bias': { shape: [1], data: new Float32Array(1) } };
  return { ...weights, config, params: { ...weights.params, ...score } };
}
