// verl fsdp_sft_trainer's loss with the policy library's ops: the mean
// negative log-likelihood over learned response tokens (sum / (tokens + 1e-8)).
// One module-level object, so the policy library compiles it once per shape.
import { np, type PolicyLoss } from '@rl/policy';

/** Token-mean NLL over `t.mask * loss_mask`. */
export const SFT_LOSS: PolicyLoss = (t) => {
  const mask = t.mask.mul(t.input('loss_mask'));
  const nll = np.sum(t.logprobs.mul(mask.ref)).mul(-1);
  return { loss: nll.div(np.sum(mask).add(1e-8)) };
};
