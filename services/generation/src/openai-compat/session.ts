import { AppError, ErrorCode } from '@rl/service-kit';
import type { InferenceBackend, TokenSession } from '../core/backend.ts';

/** Request identity the edge supplies (ids and clock stay out of the logic). */
export interface OpenAiContext {
  /** Response id (`cmpl-...` / `chatcmpl-...`). */
  id: string;
  /** Unix seconds. */
  created: number;
  /** A fresh `call_...` id for a parsed tool call. */
  newCallId(): string;
}

/** Refuses a `model` other than the one served, as vLLM does (404). */
export function checkModel(backend: InferenceBackend, model: string | undefined): void {
  if (model !== undefined && model !== backend.model) {
    throw new AppError(ErrorCode.NotFound, `The model \`${model}\` does not exist (this server serves \`${backend.model}\`).`);
  }
}

/** A token-level session; OpenAI endpoints need one (a chat-only upstream cannot serve them). */
export async function openTokenSession(backend: InferenceBackend): Promise<TokenSession> {
  const session = await backend.open();
  if (session.mode !== 'tokens') {
    session.release();
    throw new AppError(ErrorCode.Unavailable, 'this instance proxies a chat-only server (OPENAI_MODE=chat); its OpenAI endpoints need a token-level backend');
  }
  return session;
}

/** A prompt that leaves no room to generate is a 400 naming the field. */
export function checkPromptRoom(session: TokenSession, promptLength: number, field: string): void {
  const max = session.maxSequenceLength;
  if (max !== undefined && promptLength >= max) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `invalid body: ${field}: ${promptLength} tokens leave no room under the model's maximum sequence length ${max}`,
    );
  }
}
