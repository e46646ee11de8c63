// verl's actor loss (dp_actor update_policy: the registered policy loss, agg_loss, entropy
// bonus, KL loss) in the policy library's ops: the one implementation every engine trains with
// (jax-js differentiates it through the model; the torch engine takes its gradient with respect to
// the per-token log-probs and entropies from lossOnLeaves). losses.golden.test.ts checks every mode
// against verl's golden numbers.
import { np, type LossInputs, type PolicyLoss, type Tensor } from '@rl/policy';
import { aggregate, f32, maskedMean } from './helpers.ts';
import { klTerm } from './kl-term.ts';
import { JAX_POLICY_LOSSES } from './registry.ts';
import type { PgContext, PpoLossConfig } from './types.ts';

/** Builds the job's actor loss (one object per job: the policy library compiles it once). Metrics use verl's names. */
export function createPpoLoss(c: PpoLossConfig): PolicyLoss {
  const policyLoss = JAX_POLICY_LOSSES[c.policy_loss.loss_mode](c);
  return (t: LossInputs) => {
    const mask = t.mask.mul(t.input('response_mask'));
    // Filler rows have no response tokens at all (a row masked by response_mask still counts).
    const rows = f32(np.greater(np.sum(t.mask, 1), 0));
    const ctx: PgContext = {
      get logp() {
        return t.logprobs;
      },
      get old() {
        return t.input('old_logprobs');
      },
      get adv() {
        return t.input('advantages');
      },
      get mask() {
        return mask.ref;
      },
      get rows() {
        return rows.ref;
      },
      input: (name) => t.input(name),
      hasInput: (name) => t.inputNames.includes(name),
    };
    const pg = policyLoss(ctx);
    const metrics: Record<string, Tensor> = { ...pg.metrics, 'actor/pg_loss': pg.loss.ref };
    let loss = pg.loss;
    if (c.entropy_coeff !== 0) {
      const ent = aggregate(t.entropy, mask.ref, c.loss_agg_mode, c.loss_scale_factor);
      metrics['actor/entropy'] = ent.ref;
      loss = loss.sub(ent.mul(c.entropy_coeff));
    } else {
      metrics['actor/entropy'] = maskedMean(t.entropy, mask.ref);
    }
    if (c.use_kl_loss) {
      const kl = aggregate(klTerm(t.logprobs, t.input('ref_logprobs'), c.kl_loss_type), mask.ref, c.loss_agg_mode, c.loss_scale_factor);
      metrics['actor/kl_loss'] = kl.ref;
      metrics['actor/kl_coef'] = np.array(c.kl_loss_coef);
      loss = loss.add(kl.mul(c.kl_loss_coef));
    }
    mask.dispose();
    rows.dispose();
    return { loss, metrics };
  };
}
