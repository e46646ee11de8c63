import type { AgentLoop } from './agent-types.ts';
import { singleTurnAgent } from './single-turn-agent.ts';
import { toolAgent } from './tool-agent.ts';

/** Agent loops by verl's `agent_name`. */
export const AGENT_LOOPS = {
  single_turn_agent: singleTurnAgent,
  tool_agent: toolAgent,
} as const satisfies Record<string, AgentLoop>;

/** verl's default `agent_name` (`actor_rollout_ref.rollout.agent.default_agent_loop`). */
export const DEFAULT_AGENT = 'single_turn_agent';

/** Union of registered agent names. */
export type AgentName = keyof typeof AGENT_LOOPS;
