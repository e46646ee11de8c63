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
