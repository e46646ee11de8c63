import type { ChatMessage } from '../policy-types.ts';

/** The environment's answer to an assistant turn (verl's `generate_response`). */
export interface InteractionReply {
  /** End the conversation (verl's `should_terminate_sequence`). */
  done: boolean;
  /** The user message appended for the model. */
  text: string;
  /** Turn reward (verl's `turn_scores` entry); null when the interaction gives none. */
  reward: number | null;
}

/** A simulated user that reacts to each assistant turn, registered by name from the interaction config. */
export interface Interaction {
  readonly name: string;
  respond(messages: readonly ChatMessage[], kwargs: Record<string, unknown>, ctx: { signal: AbortSignal }): Promise<InteractionReply>;
}
