// verl dp_actor.update_policy: when the whole batch is one mini-batch updated
// once (`on_policy`), the old log-probs are the current log-probs detached, so
// the ratio is exactly 1 and no float noise between two forward passes enters
// the clip. This wraps a loss so its `old_logprobs` input reads that instead.
import { lax, type LossInputs, type PolicyLoss } from '@rl/policy';

/** `loss` with `input('old_logprobs')` replaced by stop_gradient(logprobs). */
export function withDetachedOldLogprobs(loss: PolicyLoss): PolicyLoss {
  return (t) => {
    const view: LossInputs = {
      get logprobs() {
        return t.logprobs;
      },
      get entropy() {
        return t.entropy;
      },
      get values() {
        return t.values;
      },
      get mask() {
        return t.mask;
      },
      input: (name: string) => (name === 'old_logprobs' ? lax.stopGradient(t.logprobs) : t.input(name)),
      inputNames: t.inputNames,
    };
    return loss(view);
  };
}
