// Rollouts from the policy worker itself (`rollout.mode: embedded`): the
// controller applies the tokenizer's chat template and decodes the responses.
// Single-turn only (agent loops live in the generation service).
import type { createTokenizer, PolicyTokenizer } from '@rl/policy';
import type { DatasetRow } from '../../data/dataset-row.ts';
import type { RolloutPort, RolloutResult } from './ports.ts';
import { toMessages } from './to-messages.ts';

/** What the embedded path needs from the policy worker. */
export interface GeneratePort {
  generate(
    prompts: number[][],
    sampling: { temperature: number; top_k: number; top_p: number; max_tokens: number; seed: number },
  ): Promise<{ version: string; generations: Array<{ token_ids: number[] }> }>;
}

export function createEmbeddedRollout(policy: GeneratePort, tokenizer: PolicyTokenizer | ReturnType<typeof createTokenizer>): RolloutPort {
  return {
    // The policy worker's own compute_s already counts generation.
    takeComputeSeconds: () => 0,
    async rollout(rows: readonly DatasetRow[], s, _version, signal) {
      signal.throwIfAborted();
      const prompts: number[][] = [];
      const owners: Array<{ row: number; uid: string }> = [];
      rows.forEach((r, i) => {
        const ids = tokenizer.applyChatTemplate(toMessages(r) as Parameters<typeof tokenizer.applyChatTemplate>[0], { addGenerationPrompt: true });
        for (let k = 0; k < s.n; k++) {
          prompts.push(ids);
          owners.push({ row: i, uid: `r${r.row_id}-${i}` });
        }
      });
      const out = await policy.generate(prompts, { temperature: s.temperature, top_k: s.topK, top_p: s.topP, max_tokens: s.maxTokens, seed: s.seed });
      return out.generations.map(
        (g, j): RolloutResult => ({
          ...owners[j]!,
          promptIds: prompts[j]!,
          responseIds: g.token_ids,
          responseMask: g.token_ids.map(() => 1),
          text: tokenizer.decode(g.token_ids),
          modelVersion: out.version,
        }),
      );
    },
  };
}
