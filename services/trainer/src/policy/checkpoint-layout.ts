// Where the policy worker's part of a checkpoint goes, in verl's layout: the
// step directory holds one directory per model (actor/, critic/), each with the
// model as a Hugging Face directory (huggingface/: config.json,
// model.safetensors, tokenizer files, generation_config.json) that transformers
// and vLLM load as they are, and beside it what only this trainer reads back
// (the optimizer state; the actor's frozen reference copy). A LoRA actor's
// adapter is a PEFT directory (lora_adapter/, where verl puts it) that peft
// and vLLM load on the base, the reference copy.
import { join } from 'node:path';

/** A LoRA adapter's PEFT directory (verl's name, in the checkpoint's actor/ and beside the final model). */
const LORA_ADAPTER_DIR = 'lora_adapter';

/** The HF directory inside a model's checkpoint directory (verl's checkpoint manager names it so). */
export const HF_DIR = 'huggingface';

/** The worker's files of one checkpoint step directory. */
export function checkpointLayout(stepDir: string) {
  const actor = join(stepDir, 'actor');
  const critic = join(stepDir, 'critic');
  return {
    actor: {
      dir: actor,
      hf: join(actor, HF_DIR),
      optimizer: join(actor, 'optimizer.bin'),
      ref: join(actor, 'ref.safetensors'),
      loraAdapter: join(actor, LORA_ADAPTER_DIR),
    },
    critic: { dir: critic, hf: join(critic, HF_DIR), optimizer: join(critic, 'optimizer.bin') },
  };
}

/** A job's final models, written when it succeeds whatever its save_freq (paths in the job directory); a LoRA actor's adapter beside its merged model. */
export const FINAL_MODEL_DIRS = { actor: 'hf_model', loraAdapter: LORA_ADAPTER_DIR, critic: 'hf_critic' } as const;
