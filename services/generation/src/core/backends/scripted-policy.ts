import { z } from 'zod';
import type { Generation, PolicyModel, SamplingParams, Tokenizer } from '../policy-types.ts';

/** What a script sees for one generation. */
export interface ScriptTurn {
  /** The prompt decoded with its special tokens. */
  promptText: string;
  /** Assistant turns already completed in this conversation (0 for the first reply). */
  turn: number;
  seed: number | undefined;
}

/** A scripted reply: its text, and whether it ends with the end-of-turn token. @default finish 'stop' */
export type ScriptReply = string | { text: string; finish?: 'stop' | 'length' };

/** Decides the model's reply; may wait (tests gate it to hold a generation in flight). */
export type Script = (turn: ScriptTurn, signal?: AbortSignal) => ScriptReply | Promise<ScriptReply>;

/** Deterministic log-prob of a scripted token, so tests can predict every value. */
export function scriptedLogprob(tokenId: number, position: number): number {
  return -(((tokenId + position) % 17) + 1) / 64;
}

/** The JSON script format (`GENERATION_SCRIPT`): the first rule whose `contains` occurs in the prompt answers. */
export const ScriptFile = z.object({
  rules: z
    .array(
      z.object({
        /** Substring of the prompt text that selects this rule; absent matches everything. */
        contains: z.string().optional(),
        /** Reply for assistant turn k is `replies[min(k, last)]`. */
        replies: z.array(z.string()).min(1),
      }),
    )
    .min(1),
});
export type ScriptFile = z.infer<typeof ScriptFile>;

/** A {@link Script} from rules; a prompt no rule matches gets an empty reply. */
export function scriptFromRules(file: ScriptFile): Script {
  return ({ promptText, turn }) => {
    const rule = file.rules.find((r) => r.contains === undefined || promptText.includes(r.contains));
    if (rule === undefined) return '';
    return rule.replies[Math.min(turn, rule.replies.length - 1)] ?? '';
  };
}

/** Options of {@link createScriptedPolicy}. */
export interface ScriptedPolicyOptions {
  script: Script;
  /** Its chat template must open assistant turns with `<|im_start|>assistant` (ChatML: the byte tokenizer's, Qwen's). */
  tokenizer: Tokenizer;
  /** @default 'scripted' */
  version?: string;
  /** @default 1048576 */
  maxSequenceLength?: number;
  /** Called with the batch size of every `generate` call (tests check batching). */
  onBatch?: (size: number) => void;
}

const ASSISTANT_OPEN = '<|im_start|>assistant';

/**
 * A {@link PolicyModel} that answers from a script instead of weights: the
 * reply's bytes plus the end-of-turn token, cut at `maxTokens`. Behind the
 * embedded backend it makes agent loops testable token by token.
 */
export function createScriptedPolicy(options: ScriptedPolicyOptions): PolicyModel {
  const { script, tokenizer, version = 'scripted', maxSequenceLength = 1 << 20, onBatch } = options;
  async function one(prompt: readonly number[], params: SamplingParams, signal?: AbortSignal): Promise<Generation> {
    const promptText = tokenizer.decode(prompt, { keepSpecial: true });
    const turn = Math.max(0, promptText.split(ASSISTANT_OPEN).length - 2);
    const reply = await script({ promptText, turn, seed: params.seed }, signal);
    const { text, finish = 'stop' } = typeof reply === 'string' ? { text: reply } : reply;
    const ids = tokenizer.encode(text);
    if (finish === 'stop') ids.push(tokenizer.eosId);
    const cut = ids.length > params.maxTokens;
    const tokenIds = cut ? ids.slice(0, Math.max(0, params.maxTokens)) : ids;
    return {
      tokenIds,
      logprobs: tokenIds.map((id, i) => scriptedLogprob(id, i)),
      finishReason: cut || finish === 'length' ? 'length' : 'stop',
    };
  }
  return {
    version,
    tokenizer,
    maxSequenceLength,
    async generate(prompts, params, signal) {
      onBatch?.(prompts.length);
      // A row's own seed (rowSeeds) wins over the request seed, as in the real policy.
      return Promise.all(prompts.map((p, i) => one(p, { ...params, seed: params.rowSeeds?.[i] ?? params.seed }, signal)));
    },
    async logprobs(pairs) {
      return pairs.map(({ response }) => Float32Array.from(response, (id, i) => scriptedLogprob(id, i)));
    },
  };
}
