// Runs a jax-js PolicyLoss the way PolicyTrainer does (jit of valueAndGrad), but differentiating
// with respect to the per-token log-probs instead of the model weights, so its gradient can be
// compared with the array twin's dLogProb. Test-only: it imports jit/valueAndGrad from jax-js.
import { jit, valueAndGrad } from '@jax-js/jax';
import { ensureTensorBackend, np, type LossInputs, type PolicyLoss, type Tensor } from '@rl/policy';
import type { ActorLossConfig } from '../../core/algos/index.ts';
import type { PpoLossConfig } from './types.ts';

/** Host values of a [B, R] batch. */
export interface HostBatch {
  readonly rows: number;
  readonly cols: number;
  readonly logprobs: Float32Array;
  readonly entropy: Float32Array;
  /** Named per-token inputs (advantages, old_logprobs, response_mask, ...). */
  readonly inputs: Readonly<Record<string, Float32Array>>;
}

/** Loss, metrics and d loss / d logprobs of a jax-js loss on host data. */
export interface JaxLossResult {
  readonly loss: number;
  readonly metrics: Record<string, number>;
  readonly dLogProb: Float32Array;
}

/** Evaluates `loss` on `batch` under jit(valueAndGrad) with respect to the log-probs. */
export async function runJaxLoss(loss: PolicyLoss, batch: HostBatch): Promise<JaxLossResult> {
  await ensureTensorBackend();
  const shape = [batch.rows, batch.cols];
  const tensor = (v: Float32Array) => np.array(Float32Array.from(v)).reshape(shape);
  const names = Object.keys(batch.inputs);
  const f = jit((logp: Tensor, entropy: Tensor, inputs: Record<string, Tensor>) => {
    const objective = (lp: Tensor): [Tensor, Record<string, Tensor>] => {
      const li: LossInputs = {
        get logprobs() {
          return lp.ref;
        },
        get entropy() {
          return entropy.ref;
        },
        get mask() {
          return np.onesLike(lp.ref);
        },
        get values(): Tensor {
          throw new Error('actor losses do not read values');
        },
        input: (name: string) => (inputs[name] as Tensor).ref,
        inputNames: names,
      };
      const r = loss(li);
      lp.dispose();
      return [r.loss, r.metrics ?? {}];
    };
    const [[value, metrics], grad] = valueAndGrad(objective, { hasAux: true })(logp);
    entropy.dispose();
    for (const t of Object.values(inputs)) t.dispose();
    return { value, metrics, grad };
  });
  const inputs = Object.fromEntries(Object.entries(batch.inputs).map(([k, v]) => [k, tensor(v)]));
  const out = f(tensor(batch.logprobs), tensor(batch.entropy), inputs);
  const metrics: Record<string, number> = {};
  for (const [k, t] of Object.entries(out.metrics)) metrics[k] = (await t.data())[0] as number;
  const result = { loss: (await out.value.data())[0] as number, metrics, dLogProb: Float32Array.from(await out.grad.data()) };
  f.dispose();
  return result;
}

/** The array twin's settings for a worker loss config (snake_case protocol -> camelCase core/algos). */
export function toActorLossConfig(c: PpoLossConfig): ActorLossConfig {
  const p = c.policy_loss;
  const rc = p.rollout_correction;
  return {
    policyLossMode: p.loss_mode,
    clipRatioLow: c.clip_ratio_low,
    clipRatioHigh: c.clip_ratio_high,
    clipRatioC: c.clip_ratio_c,
    lossAggMode: c.loss_agg_mode,
    entropyCoeff: c.entropy_coeff,
    useKlLoss: c.use_kl_loss,
    klLossCoef: c.kl_loss_coef,
    klLossType: c.kl_loss_type,
    tauPos: c.tau_pos,
    tauNeg: c.tau_neg,
    clipCovRatio: p.clip_cov_ratio,
    clipCovLb: p.clip_cov_lb,
    clipCovUb: p.clip_cov_ub,
    klCovRatio: p.kl_cov_ratio,
    ppoKlCoef: p.ppo_kl_coef,
    rolloutCorrection: {
      rolloutIs: rc.rollout_is,
      rolloutIsThreshold: rc.rollout_is_threshold,
      rolloutIsBatchNormalize: rc.rollout_is_batch_normalize,
      rolloutRs: rc.rollout_rs,
      rolloutRsThreshold: rc.rollout_rs_threshold,
      lossType: rc.loss_type,
    },
  };
}
