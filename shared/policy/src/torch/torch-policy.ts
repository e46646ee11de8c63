// One version of the torch engine's weights as a PolicyModel: generation and
// scoring run in the engine's child on the weights it trains (nothing is
// exported), for as long as that version is current. The request's checks,
// defaults, row seeds and budgets are the embedded policy's own (generation/);
// the child samples and ends rows on stop ids and budgets, and each row is then
// replayed through the same StopChecker here, which decodes the text and applies
// stop strings (a row the child ran past a stop string is cut there).
import { AppError, createRng, ErrorCode } from '@rl/service-kit/core';
import { prepareGeneration } from '../generation/generate.ts';
import { rowBudget, seedOfRow } from '../generation/generation-chunk.ts';
import type { ResolvedSampling } from '../generation/sampling-params.ts';
import type { TokenPair } from '../generation/score.ts';
import { StopChecker } from '../generation/stop-checker.ts';
import type { PolicyTokenizer } from '../tokenizers/tokenizer.ts';
import type { Generation, PolicyModel, SamplingParams } from '../types.ts';
import type { GeneratedRow, GenerateSettings } from './torch-engine.ts';

/** What a snapshot asks of its trainer: each call fails once the trainer's weights are no longer the snapshot's. */
export interface TorchPolicyLease {
  generate(prompts: readonly number[][], settings: GenerateSettings, rowSeeds: Int32Array): Promise<GeneratedRow[]>;
  logprobs(pairs: readonly TokenPair[]): Promise<Float32Array[]>;
}

/** A version of a TorchTrainer's weights that generates in its child (TorchTrainer.snapshot). */
export class TorchPolicy implements PolicyModel {
  readonly version: string;
  readonly tokenizer: PolicyTokenizer;
  readonly maxSequenceLength: number;
  readonly #lease: TorchPolicyLease;
  readonly #seeds: () => number;
  #disposed = false;

  /** `seed` starts the stream that seeds requests without one, as EmbeddedPolicy's does. */
  constructor(version: string, tokenizer: PolicyTokenizer, maxSequenceLength: number, lease: TorchPolicyLease, seed = 0) {
    this.version = version;
    this.tokenizer = tokenizer;
    this.maxSequenceLength = maxSequenceLength;
    this.#lease = lease;
    const rng = createRng(seed);
    this.#seeds = () => rng.int(0, 0x7fffffff);
  }

  async generate(prompts: readonly number[][], params: SamplingParams, signal?: AbortSignal): Promise<Generation[]> {
    this.#live();
    const s = prepareGeneration(this.tokenizer, this.maxSequenceLength, prompts, params, this.#seeds);
    signal?.throwIfAborted();
    const settings = { max_tokens: s.maxTokens, temperature: s.temperature, top_k: s.topK, top_p: s.topP, stop_token_ids: [...s.stopTokenIds] };
    const rows = await this.#lease.generate(
      prompts,
      settings,
      Int32Array.from(prompts, (_, i) => seedOfRow(s, i)),
    );
    signal?.throwIfAborted();
    return rows.map((row, i) => this.#finish(row, s, rowBudget(s, this.maxSequenceLength, (prompts[i] as number[]).length), i));
  }

  /** The row as the embedded policy ends it: replayed through its StopChecker, which may cut it at a stop string. */
  #finish(row: GeneratedRow, s: ResolvedSampling, budget: number, i: number): Generation {
    const checker = new StopChecker(this.tokenizer, s.stopTokenIds, s.stop, budget);
    for (let t = 0; t < row.ids.length && !checker.done; t++) checker.push(row.ids[t] as number, row.logprobs[t] as number);
    if (!checker.done) {
      throw new AppError(
        ErrorCode.Internal,
        `torch engine: generation row ${i} ended after ${row.ids.length} tokens, before a stop id or its budget of ${budget}`,
      );
    }
    const { finishReason, stopReason, text } = checker.state;
    return { tokenIds: checker.ids, logprobs: checker.logprobs, finishReason: finishReason ?? 'length', text, stopReason };
  }

  logprobs(pairs: ReadonlyArray<{ prompt: readonly number[]; response: readonly number[] }>): Promise<Float32Array[]> {
    this.#live();
    return this.#lease.logprobs(pairs);
  }

  /** Nothing to free (the weights are the trainer's); later calls are refused. */
  dispose(): void {
    this.#disposed = true;
  }

  #live(): void {
    if (this.#disposed) throw new AppError(ErrorCode.Internal, `policy ${this.version} used after dispose`);
  }
}
