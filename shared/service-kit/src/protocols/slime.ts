import { z } from '@hono/zod-openapi';
import { MAX_BATCH_ITEMS, MAX_DATA_SOURCE_CHARS, MAX_SOLUTION_CHARS, ScoreParams, type ScoreItem } from '../schemas/score.ts';
import { Label, readLabel } from './label.ts';
import { MAX_QUERY_CHARS } from './openrlhf.ts';
import { stripTrailingSpecialTokens } from './response-text.ts';
import { missingDataSource, type ProtocolSlot } from './slot.ts';

/** Most chat messages accepted in a slime `prompt`. */
export const MAX_PROMPT_MESSAGES = 4_096;

/**
 * Body slime posts to `--rm-url` with `--rm-type remote_rm`
 * (`slime/rollout/rm_hub/__init__.py` `remote_rm`): the sample's prompt (text
 * or chat messages), its response and its label. `metadata` is ours: it may
 * carry `data_source`, `extra_info` and `params` like a label object.
 */
export const SlimeRequest = z
  .object({
    prompt: z
      .union([z.string().max(MAX_QUERY_CHARS), z.array(z.looseObject({ role: z.string().max(64).optional(), content: z.unknown() })).max(MAX_PROMPT_MESSAGES)])
      .nullable()
      .optional()
      .openapi({ description: 'the prompt (text or chat messages); not used for rule scoring' }),
    response: z.string().max(MAX_SOLUTION_CHARS).openapi({ description: 'the model’s response; trailing special tokens are removed before scoring' }),
    label: Label.optional(),
    metadata: z
      .looseObject({
        data_source: z.string().min(1).max(MAX_DATA_SOURCE_CHARS).optional(),
        extra_info: z.record(z.string(), z.unknown()).nullable().optional(),
        params: ScoreParams.optional(),
      })
      .nullable()
      .optional()
      .openapi({ description: 'optional: data_source, extra_info, params (a label object’s fields win)' }),
  })
  .openapi('SlimeRequest', { example: { prompt: 'What is 9+9?', response: '9+9 = 18. #### 18', label: '18' } });
export type SlimeRequest = z.infer<typeof SlimeRequest>;

/**
 * A whole group in one request: what a `--custom-rm-path` batch function posts
 * under `--group-rm` (slime calls it with the group's samples; `rl_rewards.slime.group_rm`
 * posts them here). Answered by a list, one reward per sample, in order.
 */
export const SlimeGroupRequest = z.array(SlimeRequest).max(MAX_BATCH_ITEMS).openapi('SlimeGroupRequest');
export type SlimeGroupRequest = z.infer<typeof SlimeGroupRequest>;

/** Query of the slime route: `detail=true` answers with {@link SlimeRewardDetail} instead of a bare number. */
export const SlimeQuery = z.object({
  detail: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .openapi({ description: 'true: answer an object (use slime’s `--reward-key score`); default: a bare number' }),
});

/** The detailed answer: slime reads `score` with `--reward-key score`. */
export const SlimeRewardDetail = z
  .object({
    score: z.number(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    extra: z.record(z.string(), z.unknown()),
  })
  .openapi('SlimeRewardDetail');
export type SlimeRewardDetail = z.infer<typeof SlimeRewardDetail>;

/**
 * The score item of a validated slime body. Data source: the label's, else metadata's, else the URL's.
 * `at` prefixes the field a refusal names (`[3].` for a sample of a group).
 */
export function slimeItem(body: SlimeRequest, pathDataSource: string | undefined, at = ''): ScoreItem {
  const { data_source: labelSource, ...fields } = readLabel(body.label);
  const meta = body.metadata ?? undefined;
  const data_source = labelSource ?? meta?.data_source ?? pathDataSource;
  if (data_source === undefined) throw missingDataSource(`${at}label`);
  const item: ScoreItem = { data_source, solution_str: stripTrailingSpecialTokens(body.response), ...fields };
  if (item.extra_info === undefined && meta?.extra_info !== undefined) item.extra_info = meta.extra_info;
  if (item.params === undefined && meta?.params !== undefined) item.params = meta.params;
  // remote_rm posts the sample's prompt beside the response; model rewards (judges, reward models) read the question there.
  if (body.prompt != null && item.extra_info?.prompt === undefined) item.extra_info = { ...item.extra_info, prompt: body.prompt };
  return item;
}

/** The bare reward slime stores as `sample.reward`: the score, or 0 for an error. */
export function toSlimeReward(slot: ProtocolSlot): number {
  return 'error' in slot ? 0 : slot.score;
}

/** The detailed answer for `detail=true`. */
export function toSlimeDetail(slot: ProtocolSlot): SlimeRewardDetail {
  if ('error' in slot) return { score: 0, error: { code: slot.error.code, message: slot.error.message }, extra: {} };
  return { score: slot.score, error: null, extra: slot.extra ?? {} };
}
