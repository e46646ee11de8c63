import { createRoute, z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AppError, ErrorCode } from '../errors.ts';
import type { AppEnv } from '../http/app.ts';
import { problemDoc } from '../http/problem.ts';
import { MAX_DATA_SOURCE_CHARS } from '../schemas/score.ts';
import { parseJsonText, validationError } from '../validation.ts';
import { OpenRlhfRequest, OpenRlhfResponse, openRlhfItems, toOpenRlhfResponse } from '../protocols/openrlhf.ts';
import { SlimeGroupRequest, SlimeQuery, SlimeRequest, SlimeRewardDetail, slimeItem, toSlimeDetail, toSlimeReward } from '../protocols/slime.ts';
import type { ProtocolSlot } from '../protocols/slot.ts';
import { httpCallContext, type RewardCallContext } from './call-context.ts';
import type { BatchScorer } from './scorer.ts';

/** Header of a bare slime reward that is a stand-in 0: the error code. */
export const REWARD_ERROR_HEADER = 'x-reward-error';

const errors = {
  400: problemDoc('Malformed body; the message names the field (`labels[3].params.method`, `query[0]`)'),
  401: problemDoc('Missing or wrong bearer token'),
  413: problemDoc('Body larger than the configured limit'),
};
const DataSourceParam = z.object({
  data_source: z
    .string()
    .min(1)
    .max(MAX_DATA_SOURCE_CHARS)
    .openapi({ description: 'the scorer, as in `/v1/score`; may contain `/` unescaped (`/openrlhf/openai/gsm8k`)', example: 'openai/gsm8k' }),
});

function openRlhfRoute(withSource: boolean) {
  return createRoute({
    method: 'post',
    path: withSource ? '/openrlhf/{data_source}' : '/openrlhf',
    operationId: withSource ? 'scoreOpenRlhfForDataSource' : 'scoreOpenRlhf',
    summary: withSource ? 'OpenRLHF remote reward, scorer chosen by the URL' : 'OpenRLHF remote reward, scorer chosen by each label',
    description:
      'For `--reward.remote_url` (older `--remote_rm_url`). The response is the query after its prompt, trailing special tokens removed. Every sample gets a number: an error is reward 0 with `extra_logs.reward_error` = 1 (and its reason in `errors`). A label object’s `data_source` wins over the URL’s.',
    ...(withSource
      ? { request: { params: DataSourceParam, body: { required: true, content: { 'application/json': { schema: OpenRlhfRequest } } } } }
      : { request: { body: { required: true, content: { 'application/json': { schema: OpenRlhfRequest } } } } }),
    responses: { 200: { description: 'One reward per query, in order', content: { 'application/json': { schema: OpenRlhfResponse } } }, ...errors },
  });
}

function slimeRoute(withSource: boolean) {
  return createRoute({
    method: 'post',
    path: withSource ? '/slime/{data_source}' : '/slime',
    operationId: withSource ? 'scoreSlimeForDataSource' : 'scoreSlime',
    summary: withSource ? 'slime remote_rm reward, scorer chosen by the URL' : 'slime remote_rm reward, scorer chosen by the label or metadata',
    description: `For \`--rm-type remote_rm --rm-url\`. Answers a bare number (an error is 0, with its code in the \`${REWARD_ERROR_HEADER}\` header); with \`?detail=true\` an object whose \`score\` slime reads with \`--reward-key score\`. A list of samples (a \`--group-rm\` group, posted by a \`--custom-rm-path\` batch function) is scored in one call and answered by a list, one reward (or detail) per sample; the header is not set for a list (use \`?detail=true\` for the reasons).`,
    request: {
      ...(withSource ? { params: DataSourceParam } : {}),
      query: SlimeQuery,
      body: { required: true, content: { 'application/json': { schema: z.union([SlimeRequest, SlimeGroupRequest]) } } },
    },
    responses: {
      200: {
        description: 'The reward: a number, or the detail object; for a list body, a list of them in order',
        content: { 'application/json': { schema: z.union([z.number(), SlimeRewardDetail, z.array(z.union([z.number(), SlimeRewardDetail]))]) } },
      },
      ...errors,
    },
  });
}

/** The protocol routes' definitions, for each service's OpenAPI document. */
export const protocolRoutes: ReadonlyArray<RouteConfig> = [openRlhfRoute(false), openRlhfRoute(true), slimeRoute(false), slimeRoute(true)];

/**
 * Mounts OpenRLHF's and slime's reward protocols on `app` over a service's
 * batch scorer. Bodies are validated here with the protocol schemas (a
 * `data_source` may contain `/`, which OpenAPI path templates cannot match, so
 * the routes are registered by hand rather than through `app.openapi`).
 */
export function addProtocolRoutes(app: OpenAPIHono<AppEnv>, score: BatchScorer): void {
  for (const route of protocolRoutes) app.openAPIRegistry.registerPath(route);

  async function openRlhf(c: Context<AppEnv>) {
    const body = await readBody(c, OpenRlhfRequest);
    const items = openRlhfItems(body, pathDataSource(c));
    const slots = items.length === 0 ? [] : await scoreAll(score, items, httpCallContext(c));
    return c.json(toOpenRlhfResponse(slots), 200);
  }
  async function slime(c: Context<AppEnv>) {
    const query = SlimeQuery.safeParse({ detail: c.req.query('detail') });
    if (!query.success) throw validationError(query.error, 'query');
    const detail = query.data.detail === 'true' || query.data.detail === '1';
    const raw = parseJsonText(await c.req.text());
    if (Array.isArray(raw)) {
      const group = parseWith(raw, SlimeGroupRequest);
      const source = pathDataSource(c);
      const items = group.map((sample, i) => slimeItem(sample, source, `[${i}].`));
      const slots = items.length === 0 ? [] : await scoreAll(score, items, httpCallContext(c));
      return c.json(
        slots.map((s) => (detail ? toSlimeDetail(s) : toSlimeReward(s))),
        200,
      );
    }
    const body = parseWith(raw, SlimeRequest);
    const [slot] = await scoreAll(score, [slimeItem(body, pathDataSource(c))], httpCallContext(c));
    if (detail) return c.json(toSlimeDetail(slot!), 200);
    if ('error' in slot!) c.header(REWARD_ERROR_HEADER, slot.error.code);
    return c.json(toSlimeReward(slot!), 200);
  }

  app.post('/openrlhf', openRlhf);
  app.post('/openrlhf/:data_source{.+}', openRlhf);
  app.post('/slime', slime);
  app.post('/slime/:data_source{.+}', slime);
}

async function readBody<T>(c: Context<AppEnv>, schema: z.ZodType<T>): Promise<T> {
  return parseWith(parseJsonText(await c.req.text()), schema);
}

function parseWith<T>(raw: unknown, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

function pathDataSource(c: Context<AppEnv>): string | undefined {
  const raw = c.req.param('data_source');
  if (raw === undefined) return undefined;
  const parsed = DataSourceParam.safeParse({ data_source: raw });
  if (!parsed.success) throw validationError(parsed.error, 'path');
  return parsed.data.data_source;
}

/** Runs the scorer; a scorer that answers the wrong number of slots is a bug, not a reward of 0. */
async function scoreAll(score: BatchScorer, items: Parameters<BatchScorer>[0], ctx: RewardCallContext): Promise<ReadonlyArray<ProtocolSlot>> {
  const slots = await score(items, ctx);
  if (slots.length !== items.length) throw new AppError(ErrorCode.Internal, `scorer returned ${slots.length} results for ${items.length} items`);
  return slots;
}
