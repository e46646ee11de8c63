import { AppError, type BoundedQueue, ErrorCode, toErrorBody } from '@rl/service-kit/core';
import type { RolloutRequest, RolloutResponse, Trajectory, TrajectoryError } from '../../schemas/rollout.ts';
import { AGENT_LOOPS } from '../agent/agents.ts';
import type { AgentEnv, AgentLimits } from '../agent/agent-types.ts';
import type { Conversation } from '../agent/conversation.ts';
import { startTextConversation } from '../agent/text-conversation.ts';
import { startTokenConversation } from '../agent/token-conversation.ts';
import type { BackendSession, InferenceBackend } from '../backend.ts';
import type { Interaction } from '../interactions/interaction.ts';
import type { SamplingParams } from '../policy-types.ts';
import { sampleSeed } from '../seeds.ts';
import { resolveSample, type ResolvedSample } from './resolve-sample.ts';

/** Service-wide defaults of the per-request limits. */
export interface RolloutDefaults {
  maxPromptTokens: number;
  maxResponseTokens: number;
}

/** What {@link runRollouts} needs, built in `main.ts`. */
export interface RolloutDeps {
  backend: InferenceBackend;
  env: AgentEnv;
  interactions: ReadonlyMap<string, Interaction>;
  defaults: RolloutDefaults;
  /** Trajectories in flight at once, across requests. */
  slots: BoundedQueue;
  /** A fresh unique id (group uids of samples without one). */
  newId(): string;
  /** Errors that are not {@link AppError}s (bugs), reported once before they become `internal` slots. */
  onUnexpectedError?(err: unknown): void;
  /** Every failed slot's code (metrics). */
  onSlotError?(code: string): void;
  /** Resolves once the backend serves weights `version` (rejects with `unavailable` after `timeoutMs`); absent when the backend cannot swap weights. */
  waitForVersion?(version: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
}

type Slot = Trajectory | TrajectoryError;

/** Called with each trajectory as it finishes (its index in `results`), before the whole batch is answered. */
export type OnSlot = (index: number, slot: Slot) => void;
interface Job {
  group: number;
  member: number;
  uid: string;
  resolved: ResolvedSample;
}

/**
 * Rolls out every sample `n` times. Results keep request order (sample 0's n
 * trajectories first) and carry `group`, `rollout_n` and the group `uid`. A
 * failed trajectory gets an error in its slot; a bad sample field fails the
 * whole request with a 400 before anything runs. `onSlot` sees each slot as it
 * finishes, in finishing order; the answer still holds every slot.
 */
export async function runRollouts(req: RolloutRequest, deps: RolloutDeps, signal: AbortSignal, onSlot?: OnSlot): Promise<RolloutResponse> {
  const resolved = req.samples.map((s, i) => resolveSample(s, i, deps.interactions));
  if (req.model_version !== undefined) {
    if (deps.waitForVersion === undefined) {
      throw new AppError(
        ErrorCode.BadRequest,
        'model_version: this backend cannot load weight versions (needs POLICY_OBJECT_STORE with GENERATION_BACKEND=embedded, or openai with INFERENCE_SYNC)',
      );
    }
    await deps.waitForVersion(req.model_version, req.model_version_timeout_ms, signal);
  }
  const started = performance.now();
  const batchId = deps.newId();
  const jobs: Job[] = resolved.flatMap((r, group) =>
    Array.from({ length: req.n }, (_, member) => ({ group, member, uid: req.samples[group]?.uid ?? `${batchId}-${group}`, resolved: r })),
  );
  const results = await Promise.all(
    jobs.map(async (job, index) => {
      const slot = await runJob(job, req, deps, signal);
      onSlot?.(index, slot);
      return slot;
    }),
  );
  return { model: deps.backend.model, results, usage: { ...usageOf(results), wall_s: (performance.now() - started) / 1000 } };
}

async function runJob(job: Job, req: RolloutRequest, deps: RolloutDeps, signal: AbortSignal): Promise<Slot> {
  const id = { group: job.group, rollout_n: job.member, uid: job.uid };
  try {
    return await deps.slots.run(async () => {
      const session = await deps.backend.open();
      try {
        return { ...id, ...(await runTrajectory(job, session, req, deps, signal)) };
      } finally {
        session.release();
      }
    }, signal);
  } catch (err) {
    if (!(err instanceof AppError) && !signal.aborted) deps.onUnexpectedError?.(err);
    const body = signal.aborted && !(err instanceof AppError) ? { code: ErrorCode.Unavailable, message: 'rollout cancelled' } : toErrorBody(err);
    deps.onSlotError?.(body.code);
    return { ...id, error: { code: body.code, message: body.message } };
  }
}

async function runTrajectory(
  job: Job,
  session: BackendSession,
  req: RolloutRequest,
  deps: RolloutDeps,
  signal: AbortSignal,
): Promise<Omit<Trajectory, 'group' | 'rollout_n' | 'uid'>> {
  const sample = req.samples[job.group];
  if (sample === undefined) throw new AppError(ErrorCode.Internal, 'job without a sample');
  const { prompt, agentName, toolsKwargs, interaction } = job.resolved;
  const limits = limitsOf(req, deps.defaults);
  const tools = agentName === 'tool_agent' ? [...deps.env.tools.values()].map((t) => t.schema) : undefined;
  const template = { tools, templateArgs: req.chat_template_kwargs };
  const conversation: Conversation =
    session.mode === 'tokens' ? await startTokenConversation(session, prompt, template) : startTextConversation(session, prompt, template);
  const maxPrompt = req.limits.max_prompt_tokens ?? deps.defaults.maxPromptTokens;
  if (conversation.promptLength() > maxPrompt) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `samples[${job.group}].prompt: ${conversation.promptLength()} tokens exceed limits.max_prompt_tokens=${maxPrompt}`,
    );
  }
  const out = await AGENT_LOOPS[agentName](
    { conversation, sampling: samplingOf(req, limits), seed: sampleSeed(req.sampling.seed, job.group, job.member), limits, toolsKwargs, interaction, signal },
    deps.env,
  );
  const { messages, ...rest } = out;
  return { agent_name: agentName, data_source: sample.data_source ?? null, ...rest, ...(req.include_messages ? { messages } : {}) };
}

function limitsOf(req: RolloutRequest, d: RolloutDefaults): AgentLimits {
  const l = req.limits;
  return {
    maxResponseTokens: l.max_response_tokens ?? d.maxResponseTokens,
    maxAssistantTurns: l.max_assistant_turns ?? null,
    maxUserTurns: l.max_user_turns ?? null,
    maxParallelCalls: l.max_parallel_calls,
    maxToolResponseLength: l.max_tool_response_length,
    toolResponseTruncateSide: l.tool_response_truncate_side,
  };
}

function samplingOf(req: RolloutRequest, limits: AgentLimits): SamplingParams {
  const s = req.sampling;
  return {
    temperature: s.temperature,
    topP: s.top_p,
    topK: Math.max(0, s.top_k),
    maxTokens: Math.min(s.max_tokens ?? limits.maxResponseTokens, limits.maxResponseTokens),
    ...(s.stop !== undefined ? { stop: s.stop } : {}),
  };
}

function usageOf(results: Slot[]): Omit<RolloutResponse['usage'], 'wall_s'> {
  const u = { trajectories: results.length, errors: 0, prompt_tokens: 0, completion_tokens: 0, environment_tokens: 0 };
  for (const r of results) {
    if ('error' in r) {
      u.errors++;
      continue;
    }
    u.prompt_tokens += r.prompt_ids.length;
    for (const m of r.response_mask) {
      if (m === 1) u.completion_tokens++;
      else u.environment_tokens++;
    }
  }
  return u;
}
