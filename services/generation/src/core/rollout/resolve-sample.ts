import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage as WireMessage, VerlSample } from '../../schemas/rollout.ts';
import { DEFAULT_AGENT, type AgentName } from '../agent/agents.ts';
import type { Interaction } from '../interactions/interaction.ts';
import type { ChatMessage } from '../policy-types.ts';

/** What a sample asks for, resolved against the service's registries. */
export interface ResolvedSample {
  /** The prompt messages as the chat template takes them. */
  prompt: ChatMessage[];
  agentName: AgentName;
  toolsKwargs: Record<string, unknown>;
  interaction: { impl: Interaction; kwargs: Record<string, unknown> } | undefined;
}

/** A request message without its null fields (a parquet struct column's absent ones). */
function templateMessage(m: WireMessage): ChatMessage {
  const out: ChatMessage = { role: m.role, content: m.content };
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    out.tool_calls = m.tool_calls.map((c) => ({
      ...(c.id !== undefined && c.id !== null ? { id: c.id } : {}),
      ...(c.type !== undefined && c.type !== null ? { type: c.type } : {}),
      function: c.function,
    }));
  }
  if (m.tool_call_id !== undefined && m.tool_call_id !== null) out.tool_call_id = m.tool_call_id;
  if (m.name !== undefined && m.name !== null) out.name = m.name;
  if (m.reasoning_content !== undefined && m.reasoning_content !== null) out.reasoning_content = m.reasoning_content;
  return out;
}

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/**
 * Reads a sample the way verl's dataset and agent loop do: `tools_kwargs` and
 * `interaction_kwargs` at the top level or under `extra_info` (where verl's
 * `RLHFDataset` looks). An interaction applies when its kwargs carry a `name`;
 * a name that is not configured is a 400 naming the field (verl raises too).
 * Interactions run inside `tool_agent` only, as in verl.
 */
export function resolveSample(sample: VerlSample, index: number, interactions: ReadonlyMap<string, Interaction>): ResolvedSample {
  const extra = asRecord(sample.extra_info);
  const toolsKwargs = asRecord(sample.tools_kwargs) ?? asRecord(extra?.tools_kwargs) ?? {};
  const topLevel = asRecord(sample.interaction_kwargs);
  const kwargs = topLevel ?? asRecord(extra?.interaction_kwargs);
  const agentName: AgentName = sample.agent_name ?? DEFAULT_AGENT;
  const prompt = sample.prompt.map(templateMessage);
  const name = kwargs?.name;
  if (kwargs === undefined || name === undefined || name === null || agentName !== 'tool_agent')
    return { prompt, agentName, toolsKwargs, interaction: undefined };
  const field = `samples[${index}].${topLevel !== undefined ? '' : 'extra_info.'}interaction_kwargs.name`;
  const impl = typeof name === 'string' ? interactions.get(name) : undefined;
  if (impl === undefined) {
    const known = [...interactions.keys()].join(', ') || 'none';
    throw new AppError(ErrorCode.ValidationFailed, `invalid body: ${field}: unknown interaction ${JSON.stringify(name)} (configured: ${known})`, {
      details: { issues: [{ path: field, message: 'unknown interaction' }] },
    });
  }
  return { prompt, agentName, toolsKwargs, interaction: { impl, kwargs } };
}
