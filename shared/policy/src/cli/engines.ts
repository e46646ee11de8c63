// The engines `rl-policy` can score with. Each opens a model directory from its
// config.json and weights alone (no tokenizer files) and scores token pairs.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { policyFromWeights } from '../embedded-policy.ts';
import type { TokenPair } from '../generation/score.ts';
import { loadModelDir } from '../hf/model-dir.ts';
import { readAdapterDir } from '../lora/adapter-dir.ts';
import { mergeAdapter } from '../lora/lora-adapter.ts';
import type { TokenizerConfig } from '../tokenizers/tokenizer.ts';
import { TorchEngine } from '../torch/torch-engine.ts';
import type { ScoreLimits } from './score-line.ts';

/** A model opened for scoring. */
export interface Scorer extends ScoreLimits {
  /** Per response token: log p(token | prompt, earlier response tokens) and the entropy of that distribution. */
  score(pairs: readonly TokenPair[]): Promise<Array<{ logprobs: number[]; entropies: number[] }>>;
  dispose(): void;
}

/**
 * Scoring reads token ids only, so no tokenizer files are read; the policy's
 * tokenizer then only supplies the padding id (0, hidden by the masks), and a
 * one-character alphabet fits any vocabulary of 5 tokens or more.
 */
const IDS_ONLY: TokenizerConfig = { kind: 'char', characters: ['0'] };

/** What an engine opens: a model directory and, optionally, a PEFT LoRA adapter directory applied to it. */
export type OpenScorer = (dir: string, adapter?: string) => Promise<Scorer>;

/** The embedded jax-js engine (the policy worker's and the generation service's); an adapter is merged into the weights. */
async function openJax(dir: string, adapter?: string): Promise<Scorer> {
  let weights = await loadModelDir(dir, { tokenizer: false });
  if (adapter !== undefined) {
    const read = await readAdapterDir(adapter);
    weights = mergeAdapter(weights, read, read.configFile);
  }
  const policy = await policyFromWeights({ ...weights, tokenizer: IDS_ONLY });
  return {
    vocabSize: policy.config.vocabSize,
    maxSeqLen: policy.config.maxSeqLen,
    score: async (pairs) => (await policy.score(pairs)).map((s) => ({ logprobs: Array.from(s.logprobs), entropies: Array.from(s.entropy) })),
    dispose: () => policy.dispose(),
  };
}

/**
 * The PyTorch engine (shared/python/rl_torch_engine) in a child process: CUDA with bf16 compute when torch sees a GPU,
 * else fp32 on CPU. It reads an adapter directory itself and runs it unmerged, as it trains one.
 */
async function openTorch(dir: string, adapter?: string): Promise<Scorer> {
  const child = await TorchEngine.start();
  try {
    const model = await child.open(dir, adapter === undefined ? {} : { adapter });
    return {
      vocabSize: model.vocabSize,
      maxSeqLen: model.maxSeqLen,
      score: async (pairs) => (await child.score(pairs)).map((s) => ({ logprobs: Array.from(s.logprobs), entropies: Array.from(s.entropies) })),
      dispose: () => child.close(),
    };
  } catch (err) {
    child.close();
    throw err;
  }
}

const ENGINES: Record<string, OpenScorer> = { jax: openJax, torch: openTorch };

/** Names `--engine` takes. */
export const ENGINE_NAMES = Object.keys(ENGINES);

/** What opens a model directory with the engine `name`; an unknown name is an error listing the engines. */
export function engine(name: string): OpenScorer {
  const open = ENGINES[name];
  if (open === undefined) {
    throw new AppError(ErrorCode.BadRequest, `--engine: unknown engine ${JSON.stringify(name)}; the engines are: ${ENGINE_NAMES.join(', ')}`);
  }
  return open;
}
