// The worker tests' model: a one-layer tiny Qwen3 (2 query heads over 1 kv head) on the digit task's tokenizer.
import { arithmeticTokenizer } from '@rl/policy';

/** `WorkerSpec.model` input of that model, initialised from `seed`. */
export function tinyWorkerModel(seed: number) {
  return {
    tokenizer: arithmeticTokenizer().config,
    architecture: 'Qwen3ForCausalLM',
    d_model: 16,
    n_layers: 1,
    n_heads: 2,
    n_kv_heads: 1,
    head_dim: null,
    d_ff: 32,
    max_seq_len: 24,
    seed,
    path: null,
  };
}

/** The clipped PPO loss (token-mean, no KL or entropy term) the worker tests train with. */
export const TOKEN_MEAN_PPO = {
  clip_ratio_low: 0.2,
  clip_ratio_high: 0.28,
  clip_ratio_c: 3,
  loss_agg_mode: 'token-mean' as const,
  entropy_coeff: 0,
  use_kl_loss: false,
  kl_loss_coef: 0.001,
  kl_loss_type: 'low_var_kl',
};
