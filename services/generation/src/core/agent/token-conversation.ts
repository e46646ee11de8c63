import type { ChatCodec, TokenSession } from '../backend.ts';
import type { ChatMessage } from '../policy-types.ts';
import type { ToolSchema } from '../tools/tool.ts';
import type { Conversation } from './conversation.ts';

const systemPrefixes = new WeakMap<ChatCodec, Promise<number[]>>();

/**
 * The ids a template puts before the first message (a default system prompt),
 * found as verl's `initialize_system_prompt` does: render one and two empty
 * user turns; what the first has beyond one turn's length is the prefix.
 */
export function systemPrefix(codec: ChatCodec): Promise<number[]> {
  let p = systemPrefixes.get(codec);
  if (p === undefined) {
    const user: ChatMessage = { role: 'user', content: '' };
    p = Promise.all([codec.encodeChat([user], { addGenerationPrompt: false }), codec.encodeChat([user, user], { addGenerationPrompt: false })]).then(
      ([one, two]) => one.slice(0, Math.max(0, one.length - (two.length - one.length))),
    );
    systemPrefixes.set(codec, p);
  }
  return p;
}

/**
 * Ids of environment messages appended mid-conversation: the template applied
 * to them alone with a generation prompt, minus the system prefix (verl's
 * `apply_chat_template(..., remove_system_prompt=True)`). The prefix is removed
 * only where the ids really start with it.
 */
export async function encodeAppended(codec: ChatCodec, messages: readonly ChatMessage[]): Promise<number[]> {
  const [ids, prefix] = await Promise.all([codec.encodeChat(messages, { addGenerationPrompt: true }), systemPrefix(codec)]);
  const starts = prefix.length > 0 && prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
  return starts ? ids.slice(prefix.length) : ids;
}

/** Starts a token-level conversation: the prompt is templated once, then turns append ids. */
export async function startTokenConversation(
  session: TokenSession,
  initial: readonly ChatMessage[],
  tools: readonly ToolSchema[] | undefined,
): Promise<Conversation> {
  const { codec } = session;
  const promptIds = await codec.encodeChat(initial, { tools, addGenerationPrompt: true });
  const messages: ChatMessage[] = [...initial];
  const response: number[] = [];
  const mask: number[] = [];
  const logprobs: number[] = [];
  const limit = session.maxSequenceLength ?? Number.POSITIVE_INFINITY;
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
      // A server's own decoding stands for both (Hermes tool tags are plain text).
      const [text, rawText] =
        gen.text !== undefined ? [gen.text, gen.text] : await Promise.all([codec.decode(gen.tokenIds), codec.decode(gen.tokenIds, { keepSpecial: true })]);
      messages.push({ role: 'assistant', content: text });
      return { text, rawText, finishReason: gen.finishReason, tokenCount: gen.tokenIds.length };
    },
    async renderEnv(added) {
      const ids = await encodeAppended(codec, added);
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
