// Where the policy worker's part of a checkpoint goes, in verl's layout: the
// step directory holds one directory per model (actor/, critic/), each with the
// model as a Hugging Face directory (huggingface/: config.json,
// model.safetensors, tokenizer files, generation_config.json) that transformers
// and vLLM load as they are, and beside it what only this trainer reads back
// (the optimizer state; the actor's frozen reference copy).
import { join } from 'node:path';

/** The HF directory inside a model's checkpoint directory (verl's checkpoint manager names it so). */
export const HF_DIR = 'huggingface';

/** The worker's files of one checkpoint step directory. */
export function checkpointLayout(stepDir: string) {
  const actor = join(stepDir, 'actor');
  const critic = join(stepDir, 'critic');
  return {
    actor: { dir: actor, hf: join(actor, HF_DIR), optimizer: join(actor, 'optimizer.bin'), ref: join(actor, 'ref.safetensors') },
    critic: { dir: critic, hf: join(critic, HF_DIR), optimizer: join(critic, 'optimizer.bin') },
  };
}

/** A job's final models, written when it succeeds whatever its save_freq (paths in the job directory). */
export const FINAL_MODEL_DIRS = { actor: 'hf_model', critic: 'hf_critic' } as const;
