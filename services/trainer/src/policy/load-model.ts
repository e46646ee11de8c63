// The worker's one way to read a model: a Hugging Face model directory's
// config and weights, with the job's tokenizer (the spec carries it: the
// directory's own tokenizer, or the job's `tokenizer` key, which overrides it).
import { loadModelDir, type PolicyWeights, type TokenizerConfig } from '@rl/policy';

/** The weights of the model directory `dir`, with `tokenizer`. */
export async function loadModel(dir: string, tokenizer: TokenizerConfig): Promise<PolicyWeights> {
  return { ...(await loadModelDir(dir, { tokenizer: false })), tokenizer };
}
