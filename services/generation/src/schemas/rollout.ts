import { z } from '@hono/zod-openapi';
import { ErrorCode } from '@rl/service-kit';

/** Longest message content accepted, in UTF-16 units. */
export const MAX_CONTENT_CHARS = 256 * 1024;
/** Most samples in one rollout request. */
export const MAX_SAMPLES = 4096;
/** Most trajectories per sample (GRPO group size). */
export const MAX_N = 256;

/** A function call of an assistant message (OpenAI shape; `arguments` as JSON text or an object). */
const MessageToolCall = z.object({
  id: z.string().max(256).nullish(),
  type: z.literal('function').nullish(),
  function: z.object({
    name: z.string().max(256),
    arguments: z.union([z.string().max(MAX_CONTENT_CHARS), z.record(z.string(), z.unknown())]),
  }),
});

/**
 * A chat message of verl's `prompt` column, as the chat template reads it:
 * assistant turns may carry `tool_calls`, tool answers `tool_call_id`. Nulls
 * (what a parquet struct column gives for an absent field) count as absent.
 */
export const ChatMessage = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string().max(MAX_CONTENT_CHARS),
    tool_calls: z.array(MessageToolCall).max(128).nullish(),
    tool_call_id: z.string().max(256).nullish(),
    name: z.string().max(256).nullish(),
    reasoning_content: z
      .string()
      .max(MAX_CONTENT_CHARS)
      .nullish()
      .openapi({ description: 'An assistant turn’s thinking, for templates that render it (Qwen3)' }),
  })
  .openapi('ChatMessage');
export type ChatMessage = z.infer<typeof ChatMessage>;

const KwargsRecord = z.record(z.string(), z.unknown());

/** One row of a verl dataset (parquet), with the fields the agent loops read; other columns pass through. */
export const VerlSample = z
  .looseObject({
    prompt: z.array(ChatMessage).min(1).max(512),
    data_source: z.string().max(256).nullish(),
    agent_name: z.enum(['single_turn_agent', 'tool_agent']).nullish().openapi({ description: 'verl agent loop; absent or null means `single_turn_agent`' }),
    tools_kwargs: KwargsRecord.nullish().openapi({
      description: '`{<tool>: {create_kwargs: {...}}}`; falls back to `extra_info.tools_kwargs` as verl reads it',
    }),
    interaction_kwargs: KwargsRecord.nullish().openapi({
      description: '`{name, ...}`: the interaction by `name`; falls back to `extra_info.interaction_kwargs`',
    }),
    extra_info: KwargsRecord.nullish(),
    reward_model: z.unknown().optional(),
    index: z.union([z.number(), z.string()]).nullish(),
    uid: z.string().min(1).max(256).optional().openapi({ description: 'Group id of this sample’s n trajectories; generated when absent' }),
  })
  .openapi('VerlSample');
export type VerlSample = z.infer<typeof VerlSample>;

/** Sampling parameters of every turn (vLLM names). */
export const RolloutSampling = z
  .object({
    temperature: z.number().min(0).max(100).default(1).openapi({ description: '0 is greedy' }),
    top_p: z.number().gt(0).max(1).default(1),
    top_k: z.number().int().min(-1).max(1_000_000).default(-1).openapi({ description: '-1 or 0: no top-k' }),
    max_tokens: z.number().int().min(1).max(1_000_000).optional().openapi({ description: 'Cap of each model turn; default the response budget' }),
    seed: z.number().int().min(0).max(4_294_967_295).optional().openapi({ description: 'Request seed; each trajectory and turn gets a seed derived from it' }),
    stop: z.array(z.string().min(1).max(256)).max(16).optional(),
  })
  .openapi('RolloutSampling');
export type RolloutSampling = z.infer<typeof RolloutSampling>;

/** Limits of each trajectory (verl's `prompt_length`, `response_length` and `multi_turn.*`). */
export const RolloutLimits = z
  .object({
    max_prompt_tokens: z
      .number()
      .int()
      .min(1)
      .max(10_000_000)
      .optional()
      .openapi({ description: 'Longer prompts fail in their slot; default the service’s ROLLOUT_MAX_PROMPT_TOKENS' }),
    max_response_tokens: z
      .number()
      .int()
      .min(1)
      .max(10_000_000)
      .optional()
      .openapi({ description: 'Budget of model + tool/interaction tokens; default ROLLOUT_MAX_RESPONSE_TOKENS' }),
    max_assistant_turns: z.number().int().min(1).max(10_000).nullish(),
    max_user_turns: z.number().int().min(1).max(10_000).nullish(),
    max_parallel_calls: z.number().int().min(1).max(64).default(1),
    max_tool_response_length: z.number().int().min(1).max(10_000_000).default(256),
    tool_response_truncate_side: z.enum(['left', 'middle', 'right']).default('middle'),
  })
  .openapi('RolloutLimits');
export type RolloutLimits = z.infer<typeof RolloutLimits>;

/** A batch of samples to roll out, `n` trajectories each (HTTP `POST /v1/rollouts` and NATS `rollout.generate`). */
export const RolloutRequest = z
  .object({
    samples: z.array(VerlSample).min(1).max(MAX_SAMPLES),
    n: z.number().int().min(1).max(MAX_N).default(1),
    sampling: RolloutSampling.default({ temperature: 1, top_p: 1, top_k: -1 }),
    limits: RolloutLimits.default({ max_parallel_calls: 1, max_tool_response_length: 256, tool_response_truncate_side: 'middle' }),
    include_messages: z.boolean().default(true).openapi({ description: 'Return each trajectory’s message list' }),
    chat_template_kwargs: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        'Extra chat-template variables for every prompt and appended turn (verl’s `data.apply_chat_template_kwargs`, vLLM’s `chat_template_kwargs`), e.g. `{"enable_thinking": false}` for Qwen3',
    }),
    model_version: z.string().min(1).max(256).optional().openapi({
      description:
        'On-policy rollouts: wait (up to `model_version_timeout_ms`) until this weights version (a trainer publishes it to the object store) is served, by the embedded model or by the inference server `INFERENCE_SYNC` keeps in step, then roll out on it; 503 `unavailable` if it does not arrive or its sync failed',
    }),
    model_version_timeout_ms: z.number().int().min(0).max(600_000).default(30_000),
  })
  .openapi('RolloutRequest');
export type RolloutRequest = z.infer<typeof RolloutRequest>;

const ToolCallRecord = z.object({
  turn: z.number().int(),
  name: z.string().nullable(),
  arguments: z.record(z.string(), z.unknown()).nullable(),
  error: z.enum(['malformed', 'unknown_tool', 'timeout', 'failed']).optional(),
  reward: z.number().nullable(),
});

const SlotId = {
  group: z.number().int().openapi({ description: 'Index of the sample in `samples`' }),
  rollout_n: z.number().int().openapi({ description: 'Index of this trajectory within its group' }),
  uid: z.string().openapi({ description: 'Group id shared by the n trajectories of a sample (GRPO)' }),
};

/** One trajectory (verl's `AgentLoopOutput` fields plus counts and messages). */
export const Trajectory = z
  .object({
    ...SlotId,
    agent_name: z.string(),
    data_source: z.string().nullable(),
    prompt_ids: z.array(z.number().int()),
    response_ids: z.array(z.number().int()),
    response_mask: z.array(z.number().int()).openapi({ description: '1 for model tokens, 0 for tool/interaction tokens' }),
    response_logprobs: z.array(z.number()).openapi({ description: 'Log-prob of each model token; 0 where the mask is 0' }),
    num_turns: z.number().int(),
    turn_scores: z.array(z.number()),
    tool_rewards: z.array(z.number()),
    tool_calls: z.array(ToolCallRecord),
    num_tool_calls: z.number().int(),
    num_tool_errors: z.number().int(),
    messages: z.array(ChatMessage).optional(),
    stop_reason: z.enum(['stop', 'length', 'response_budget', 'sequence_limit', 'max_assistant_turns', 'max_user_turns', 'interaction_done']),
    token_level: z.boolean().openapi({ description: 'False when the backend gives text only (token fields empty)' }),
    model_version: z.string(),
  })
  .openapi('Trajectory');
export type Trajectory = z.infer<typeof Trajectory>;

/** A trajectory that failed: its slot carries the error. */
export const TrajectoryError = z
  .object({
    ...SlotId,
    error: z.object({ code: z.enum(Object.values(ErrorCode) as [string, ...string[]]), message: z.string() }),
  })
  .openapi('TrajectoryError');
export type TrajectoryError = z.infer<typeof TrajectoryError>;

/** Trajectories in request order: sample 0's n, then sample 1's, ... */
export const RolloutResponse = z
  .object({
    model: z.string(),
    results: z.array(z.union([Trajectory, TrajectoryError])),
    usage: z.object({
      trajectories: z.number().int(),
      errors: z.number().int(),
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int().openapi({ description: 'Model tokens (mask 1)' }),
      environment_tokens: z.number().int().openapi({ description: 'Tool and interaction tokens (mask 0)' }),
      wall_s: z.number().openapi({ description: 'Seconds this service spent on the request (waiting for a weights version excluded)' }),
    }),
  })
  .openapi('RolloutResponse');
export type RolloutResponse = z.infer<typeof RolloutResponse>;
