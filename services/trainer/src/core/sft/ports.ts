// What the SFT loop needs from the outside world: the policy worker (train
// steps, log-probs for the validation loss, checkpoints). Adapters implement
// it over NATS; tests implement it in process.
import type { SftSequence } from '../../data/sft/sft-tokenize.ts';
import type { PadWidths } from '../controller/ports.ts';

/** The policy worker as the SFT loop sees it. */
export interface SftPolicyPort {
  /** One optimizer step over `microBatches` (gradient accumulation) at learning rate `lr`, padded to `widths`. */
  sftStep(
    microBatches: readonly (readonly SftSequence[])[],
    lr: number,
    step: number,
    widths: PadWidths,
  ): Promise<{ loss: number; gradNorm: number; skipped: boolean }>;
  /** Log-probs of every response token under the current weights. */
  logprobs(pairs: ReadonlyArray<{ prompt: number[]; response: number[] }>, widths: PadWidths): Promise<number[][]>;
  /** Publishes the weights and/or writes a checkpoint into `checkpointDir`; returns the version. */
  export(publish: boolean, checkpointDir?: string): Promise<string>;
}
