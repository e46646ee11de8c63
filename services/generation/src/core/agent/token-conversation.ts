import type { ChatCodec, TemplateInput, TokenSession } from '../backend.ts';
import type { ChatMessage } from '../policy-types.ts';
import { assistantTurn } from './assistant-turn.ts';
import type { Conversation } from './conversation.ts';

const systemPrefixes = new WeakMap<ChatCodec, Map<string, Promise<number[]>>>();

/**
 * The ids a template puts before the first message (a default system prompt),
 * found as verl's `initialize_system_prompt` does: render one and two empty
 * user turns; what the first has beyond one turn's length is the prefix.
 */
export function systemPrefix(codec: ChatCodec, templateArgs?: Record<string, unknown>): Promise<number[]> {
  const byArgs = systemPrefixes.get(codec) ?? new Map<string, Promise<number[]>>();
  systemPrefixes.set(codec, byArgs);
  const key = JSON.stringify(templateArgs ?? {});
  let p = byArgs.get(key);
  if (p === undefined) {
    const user: ChatMessage = { role: 'user', content: '' };
    const render = (messages: ChatMessage[]) => codec.encodeChat(messages, { templateArgs, addGenerationPrompt: false });
    p = Promise.all([render([user]), render([user, user])]).then(([one, two]) => one.slice(0, Math.max(0, one.length - (two.length - one.length))));
    // A failed render is not cached: the next trajectory tries again.
    p.catch(() => byArgs.delete(key));
    byArgs.set(key, p);
  }
  return p;
}

/**
 * Ids of environment messages appended mid-conversation: the template applied
 * to them alone with a generation prompt, minus the system prefix (verl's
 * `apply_chat_template(..., remove_system_prompt=True)`). The prefix is removed
 * only where the ids really start with it.
 */
export async function encodeAppended(codec: ChatCodec, messages: readonly ChatMessage[], templateArgs?: Record<string, unknown>): Promise<number[]> {
  const [ids, prefix] = await Promise.all([codec.encodeChat(messages, { templateArgs, addGenerationPrompt: true }), systemPrefix(codec, templateArgs)]);
  const starts = prefix.length > 0 && prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
  return starts ? ids.slice(prefix.length) : ids;
}

/**
 * Starts a token-level conversation. The prompt is the chat template applied
 * once to the initial messages and the tools; after that the ids only grow
 * (token in, token out): the model's turns are its sampled ids as they are,
 * and environment messages are templated alone and appended (verl's agent
 * loop does the same), never by re-rendering the whole history, which with
 * templates such as Qwen3's (thinking dropped from earlier turns, a newline
 * after each end-of-turn token the model did not sample) would change ids
 * already generated and scored.
 */
export async function startTokenConversation(session: TokenSession, initial: readonly ChatMessage[], template: TemplateInput = {}): Promise<Conversation> {
  const { codec } = session;
  const { tools, templateArgs } = template;
  const promptIds = await codec.encodeChat(initial, { tools, templateArgs, addGenerationPrompt: true });
  const messages: ChatMessage[] = [...initial];
  const response: number[] = [];
  const mask: number[] = [];
  const logprobs: number[] = [];
  const limit = session.maxSequenceLength ?? Number.POSITIVE_INFINITY;
  let turns = 0;
  return {
    tokenLevel: true,
    modelVersion: session.modelVersion,
    messages,
    promptLength: () => promptIds.length,
    responseLength: () => response.length,
    sequenceRoom: () => limit - promptIds.length - response.length,
    async generate(params, signal) {
      const gen = await session.generate({ promptIds: [...promptIds, ...response], params, signal });
      response.push(...gen.tokenIds);
      mask.push(...gen.tokenIds.map(() => 1));
      logprobs.push(...gen.logprobs);
      // Text without special tokens, as vLLM's tool parser reads it (a server's own decoding is that text).
      const text = gen.text ?? (await codec.decode(gen.tokenIds));
      const turn = assistantTurn(text, tools !== undefined, ++turns);
      messages.push(turn.message);
      return { ...turn, finishReason: gen.finishReason, tokenCount: gen.tokenIds.length };
    },
    async renderEnv(added) {
      const ids = await encodeAppended(codec, added, templateArgs);
      return {
        tokenCount: ids.length,
        commit() {
          response.push(...ids);
          mask.push(...ids.map(() => 0));
          logprobs.push(...ids.map(() => 0));
          messages.push(...added);
        },
      };
    },
    fields: (max) => ({
      prompt_ids: promptIds,
      response_ids: response.slice(0, max),
      response_mask: mask.slice(0, max),
      response_logprobs: logprobs.slice(0, max),
    }),
  };
}
