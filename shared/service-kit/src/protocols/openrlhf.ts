import { z } from '@hono/zod-openapi';
import { MAX_BATCH_ITEMS, MAX_SOLUTION_CHARS, type ScoreItem } from '../schemas/score.ts';
import { Label, readLabel } from './label.ts';
import { responseAfterPrompt } from './response-text.ts';
import { missingDataSource, responseTooLong, type ProtocolSlot } from './slot.ts';

/** Longest accepted `query[i]` or `prompts[i]`: a prompt plus a response of the longest accepted length. */
export const MAX_QUERY_CHARS = 4 * MAX_SOLUTION_CHARS;

/** The flag every sample carries in `extra_logs`: 1 when its reward is a stand-in 0 for an error. */
const OPENRLHF_ERROR_LOG_KEY = 'reward_error';

/**
 * Body OpenRLHF posts to `--reward.remote_url` (`--remote_rm_url` before 0.9):
 * `SingleTurnAgentExecutor._fetch_rewards_via_http` (openrlhf/utils/agent.py),
 * formerly `remote_rm_utils.request_api_wrapper`. `query` is prompt + response
 * decoded with special tokens; `labels` come from the dataset's `--label_key`.
 */
export const OpenRlhfRequest = z
  .object({
    query: z.array(z.string().max(MAX_QUERY_CHARS)).max(MAX_BATCH_ITEMS).openapi({ description: 'prompt + response, decoded with special tokens' }),
    prompts: z
      .array(z.string().max(MAX_QUERY_CHARS))
      .max(MAX_BATCH_ITEMS)
      .optional()
      .openapi({ description: 'the prompt of each query; the response is what follows it. Absent: the whole query is the response' }),
    labels: z
      .array(Label)
      .max(MAX_BATCH_ITEMS)
      .optional()
      .openapi({ description: 'ground truths, or label objects naming their data_source. Absent: null ground truths' }),
  })
  .superRefine((body, ctx) => {
    for (const key of ['prompts', 'labels'] as const) {
      const list = body[key];
      if (list !== undefined && list.length !== body.query.length) {
        ctx.addIssue({ code: 'custom', path: [key], message: `has ${list.length} entries but query has ${body.query.length}` });
      }
    }
  })
  .openapi('OpenRlhfRequest', {
    example: {
      query: ['<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n9+9 = 18. #### 18<|im_end|>'],
      prompts: ['<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n'],
      labels: ['18'],
    },
  });
export type OpenRlhfRequest = z.infer<typeof OpenRlhfRequest>;

/**
 * What OpenRLHF reads back: `rewards` (advantages), `scores` (dynamic
 * filtering; older releases index it unconditionally) and `extra_logs`, whose
 * every value it turns into a tensor, so each is a list of numbers, one per
 * sample, and every sample has the same keys. `errors` is ours (OpenRLHF ignores it).
 */
export const OpenRlhfResponse = z
  .object({
    rewards: z.array(z.number()),
    scores: z.array(z.number()),
    extra_logs: z
      .record(z.string(), z.array(z.number()))
      .openapi({ description: `\`${OPENRLHF_ERROR_LOG_KEY}\`: 1 where the reward is 0 because scoring failed, else 0` }),
    errors: z
      .array(z.object({ code: z.string(), message: z.string() }).nullable())
      .openapi({ description: 'why each flagged sample failed; null for scored samples' }),
  })
  .openapi('OpenRlhfResponse');
export type OpenRlhfResponse = z.infer<typeof OpenRlhfResponse>;

/**
 * Turns a validated body into our score items. A label's own `data_source`
 * wins over the one in the URL; a sample with neither is a 400 naming it.
 */
export function openRlhfItems(body: OpenRlhfRequest, pathDataSource: string | undefined): ScoreItem[] {
  return body.query.map((query, i) => {
    const { data_source = pathDataSource, ...rest } = readLabel(body.labels?.[i]);
    if (data_source === undefined) throw missingDataSource(`labels[${i}]`);
    const solution_str = responseAfterPrompt(query, body.prompts?.[i] ?? '');
    if (solution_str.length > MAX_SOLUTION_CHARS) throw responseTooLong(`query[${i}]`, solution_str.length);
    return { data_source, solution_str, ...rest };
  });
}

/** Our results as OpenRLHF's response: every sample gets a number; errors are 0 with the flag set. */
export function toOpenRlhfResponse(slots: ReadonlyArray<ProtocolSlot>): OpenRlhfResponse {
  const rewards = slots.map((s) => ('error' in s ? 0 : s.score));
  return {
    rewards,
    scores: rewards,
    extra_logs: { [OPENRLHF_ERROR_LOG_KEY]: slots.map((s) => ('error' in s ? 1 : 0)) },
    errors: slots.map((s) => ('error' in s ? { code: s.error.code, message: s.error.message } : null)),
  };
}
