import { AppError, ErrorCode } from '@rl/service-kit';
import { np, type Tensor } from '@rl/policy';
import { sg, torchAbs } from './helpers.ts';

/** One estimator of verl kl_penalty_forward (low_var_kl clamped to [-10, 10], as verl does). */
function forward(logprob: Tensor, ref: Tensor, kind: string): Tensor {
  const diff = logprob.sub(ref);
  switch (kind) {
    case 'kl':
    case 'k1':
      return diff;
    case 'abs':
      return torchAbs(diff);
    case 'mse':
    case 'k2':
      return np.square(diff).mul(0.5);
    case 'low_var_kl':
    case 'k3': {
      const kl = np.clip(diff.mul(-1), -20, 20); // ref - logprob
      return np.clip(np.exp(kl.ref).sub(kl).sub(1), -10, 10);
    }
    default:
      throw new AppError(ErrorCode.InvalidParams, `kl_loss_type ${kind} is not implemented (verl raises NotImplementedError)`, {
        details: { field: 'kl_loss_type' },
      });
  }
}

/**
 * verl `kl_penalty(logprob, ref, kind)` per token. A trailing
 * "+" is the straight-through variant: the value of the base estimator with the gradient of k2,
 * k2 - sg(k2) + sg(value). Consumes both inputs.
 */
export function klTerm(logprob: Tensor, ref: Tensor, kind: string): Tensor {
  if (!kind.endsWith('+')) return forward(logprob, ref, kind);
  const value = sg(forward(logprob.ref, ref.ref, kind.slice(0, -1)));
  const k2 = np.square(logprob.sub(ref)).mul(0.5);
  return k2.ref.sub(sg(k2)).add(value);
}
