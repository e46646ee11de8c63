// verl's actor loss (dp_actor update_policy: compute_policy_loss_vanilla,
// agg_loss, entropy bonus, KL loss) written with the policy library's ops, so
// autodiff goes through the model. The same numbers are computed on plain
// arrays by core/algos (computeActorLoss); a test checks the two agree.
import { np, type LossInputs, type PolicyLoss, type Tensor } from '@rl/shared/policy';

/** Loss settings, fixed for a job (the loss is compiled once per function object). */
export interface PpoLossConfig {
  clipRatioLow: number;
  clipRatioHigh: number;
  /** Dual-clip bound for negative advantages (verl clip_ratio_c). */
  clipRatioC: number;
  lossAggMode: 'token-mean' | 'seq-mean-token-sum' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm';
  entropyCoeff: number;
  useKlLoss: boolean;
  klLossCoef: number;
  klLossType: string;
  /** seq-mean-token-sum-norm divisor (verl: the padded response length, data.max_response_length). */
  lossScaleFactor: number;
}

/** Per-token inputs the loss reads (`TrainBatch.inputs`). */
export const LOSS_INPUTS = ['advantages', 'old_logprobs', 'response_mask', 'ref_logprobs'] as const;

/** verl agg_loss over [B, R] with a 0/1 mask; rows whose mask is empty (filler rows) do not count as sequences. */
function aggregate(mat: Tensor, mask: Tensor, mode: PpoLossConfig['lossAggMode'], scale: number): Tensor {
  if (mode === 'token-mean') return np.sum(mat.mul(mask.ref)).div(np.maximum(np.sum(mask), 1));
  if (mode === 'seq-mean-token-sum-norm') return np.sum(mat.mul(mask)).div(scale);
  const rowTokens = np.sum(mask.ref, 1);
  const rows = np.maximum(np.sum(np.greater(rowTokens.ref, 0).astype(np.float32)), 1);
  let perRow = np.sum(mat.mul(mask), 1);
  if (mode === 'seq-mean-token-mean') perRow = perRow.div(rowTokens.add(1e-8));
  else rowTokens.dispose();
  return np.sum(perRow).div(rows);
}

function maskedMean(x: Tensor, mask: Tensor): Tensor {
  return np.sum(x.mul(mask.ref)).div(np.maximum(np.sum(mask), 1));
}

/** verl kl_penalty for the KL loss (low_var_kl clamped to [-10, 10], as verl does). */
function klTerm(logprob: Tensor, ref: Tensor, kind: string): Tensor {
  const diff = logprob.sub(ref);
  switch (kind) {
    case 'kl':
    case 'k1':
      return diff;
    case 'abs':
      return np.abs(diff);
    case 'mse':
    case 'k2':
      return np.square(diff).mul(0.5);
    case 'low_var_kl':
    case 'k3': {
      const kl = diff.mul(-1); // ref - logprob
      const ratio = np.exp(np.clip(kl.ref, -20, 20));
      return np.clip(ratio.sub(kl).sub(1), -10, 10);
    }
    default:
      throw new Error(`kl_loss_type ${kind} is not supported by the embedded policy worker`);
  }
}

/** Builds the job's actor loss. Metrics use verl's actor/* names. */
export function createPpoLoss(c: PpoLossConfig): PolicyLoss {
  return (t: LossInputs) => {
    const mask = t.mask.mul(t.input('response_mask'));
    const adv = t.input('advantages');
    // verl: negative_approx_kl = log_prob - old_log_prob, clamped to [-20, 20] before exp.
    const negApproxKl = np.clip(t.logprobs.sub(t.input('old_logprobs')), -20, 20);
    const ratio = np.exp(negApproxKl.ref);
    const pg1 = adv.ref.mul(ratio.ref).mul(-1);
    const pg2 = adv.ref.mul(np.clip(ratio, 1 - c.clipRatioLow, 1 + c.clipRatioHigh)).mul(-1);
    const clipped1 = np.maximum(pg1.ref, pg2.ref);
    const pg3 = adv.ref.mul(-c.clipRatioC);
    const clipped2 = np.minimum(pg3.ref, clipped1.ref);
    const negative = np.less(adv, 0);
    const pgLosses = np.where(negative.ref, clipped2, clipped1.ref);
    const pgLoss = aggregate(pgLosses, mask.ref, c.lossAggMode, c.lossScaleFactor);
    const metrics: Record<string, Tensor> = {
      'actor/pg_loss': pgLoss.ref,
      'actor/pg_clipfrac': maskedMean(np.greater(pg2, pg1).astype(np.float32), mask.ref),
      'actor/ppo_kl': maskedMean(negApproxKl.mul(-1), mask.ref),
      'actor/pg_clipfrac_lower': maskedMean(np.greater(clipped1, pg3).astype(np.float32).mul(negative.astype(np.float32)), mask.ref),
    };
    let loss = pgLoss;
    if (c.entropyCoeff !== 0) {
      const ent = aggregate(t.entropy, mask.ref, c.lossAggMode, c.lossScaleFactor);
      metrics['actor/entropy'] = ent.ref;
      loss = loss.sub(ent.mul(c.entropyCoeff));
    } else {
      metrics['actor/entropy'] = maskedMean(t.entropy, mask.ref);
    }
    if (c.useKlLoss) {
      const kl = aggregate(klTerm(t.logprobs, t.input('ref_logprobs'), c.klLossType), mask.ref, c.lossAggMode, c.lossScaleFactor);
      metrics['actor/kl_loss'] = kl.ref;
      loss = loss.add(kl.mul(c.klLossCoef));
    }
    mask.dispose();
    return { loss, metrics };
  };
}
