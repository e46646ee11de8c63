import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { VerlSample } from '../../schemas/rollout.ts';
import { DEFAULT_AGENT, type AgentName } from '../agent/agents.ts';
import type { Interaction } from '../interactions/interaction.ts';

/** What a sample asks for, resolved against the service's registries. */
export interface ResolvedSample {
  agentName: AgentName;
  toolsKwargs: Record<string, unknown>;
  interaction: { impl: Interaction; kwargs: Record<string, unknown> } | undefined;
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
  const name = kwargs?.name;
  if (kwargs === undefined || name === undefined || name === null || agentName !== 'tool_agent') return { agentName, toolsKwargs, interaction: undefined };
  const field = `samples[${index}].${topLevel !== undefined ? '' : 'extra_info.'}interaction_kwargs.name`;
  const impl = typeof name === 'string' ? interactions.get(name) : undefined;
  if (impl === undefined) {
    const known = [...interactions.keys()].join(', ') || 'none';
    throw new AppError(ErrorCode.ValidationFailed, `invalid body: ${field}: unknown interaction ${JSON.stringify(name)} (configured: ${known})`, {
      details: { issues: [{ path: field, message: 'unknown interaction' }] },
    });
  }
  return { agentName, toolsKwargs, interaction: { impl, kwargs } };
}
