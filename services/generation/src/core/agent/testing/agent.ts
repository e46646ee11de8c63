// Shared fixtures of the agent-loop tests: a scripted token session, a fake
// environment port and manual deadlines (no timers anywhere).
import { ByteTokenizer } from '@rl/policy';
import { createEmbeddedBackend, fixedPolicyProvider } from '../../backends/embedded-backend.ts';
import { createScriptedPolicy, type Script } from '../../backends/scripted-policy.ts';
import type { InferenceBackend, TokenSession } from '../../backend.ts';
import type { EnvPort, RunCodeRequest, RunCodeResponse, ScoreItem, ScoreResult } from '../../env-port.ts';
import type { ChatMessage } from '../../policy-types.ts';
import type { AgentLimits } from '../agent-types.ts';

export const tokenizer = new ByteTokenizer();
export const EOS = tokenizer.eosId;

/** A scripted backend over the byte tokenizer (ChatML template). */
export function scriptedBackend(script: Script, onBatch?: (n: number) => void): InferenceBackend {
  const policy = createScriptedPolicy({ script, tokenizer, ...(onBatch !== undefined ? { onBatch } : {}) });
  return createEmbeddedBackend({ provider: fixedPolicyProvider(policy), model: 'scripted', kind: 'scripted' });
}

/** A session of a backend whose replies are `replies[turn]`. */
export async function replySession(replies: string[]): Promise<TokenSession> {
  const session = await scriptedBackend(({ turn }) => replies[Math.min(turn, replies.length - 1)] ?? '').open();
  if (session.mode !== 'tokens') throw new Error('expected a token session');
  return session;
}

/** Generous limits like verl's defaults (no turn limits, one call per turn). */
export function limits(over: Partial<AgentLimits> = {}): AgentLimits {
  return {
    maxResponseTokens: 4096,
    maxAssistantTurns: null,
    maxUserTurns: null,
    maxParallelCalls: 1,
    maxToolResponseLength: 256,
    toolResponseTruncateSide: 'middle',
    ...over,
  };
}

/** A port whose gsm8k scores are 1 when the solution ends with `#### <ground truth>`; records every item. */
export function fakePort(over: Partial<EnvPort> = {}): EnvPort & { scored: ScoreItem[]; ran: RunCodeRequest[] } {
  const scored: ScoreItem[] = [];
  const ran: RunCodeRequest[] = [];
  return {
    scored,
    ran,
    score: async (items): Promise<ScoreResult[]> => {
      scored.push(...items);
      return items.map((i) => ({ score: i.solution_str.trim().endsWith(`#### ${String(i.ground_truth)}`) ? 1 : 0 }));
    },
    runCode: async (req): Promise<RunCodeResponse> => {
      ran.push(req);
      return { status: 'Success', message: '', compile_result: null, run_result: { status: 'Finished', stdout: 'out\n', stderr: '', return_code: 0 } };
    },
    ...over,
  };
}

/** Deadlines the test fires by hand: `fire()` aborts every deadline handed out so far. */
export function manualDeadlines(): { deadline: (ms: number) => AbortSignal; fire(): void; requested: number[] } {
  const controllers: AbortController[] = [];
  const requested: number[] = [];
  return {
    requested,
    deadline: (ms) => {
      requested.push(ms);
      const c = new AbortController();
      controllers.push(c);
      return c.signal;
    },
    fire: () => controllers.forEach((c) => c.abort(new Error('deadline'))),
  };
}

/** Ids of model text as the scripted policy emits it: its bytes and the end-of-turn token. */
export const modelIds = (text: string) => [...tokenizer.encode(text), EOS];

/** Ids of environment messages appended mid-conversation (the byte tokenizer's ChatML has no default system prompt). */
export const envIds = (messages: ChatMessage[]) => tokenizer.applyChatTemplate(messages, { addGenerationPrompt: true });
