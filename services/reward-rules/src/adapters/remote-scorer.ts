import { AppError, ErrorCode, ScoreResponse, requestJson } from '@rl/shared';
import type { NatsConnection } from '@nats-io/transport-node';
import type { BatchItem, SlotResult } from '../core/score-batch.ts';

/** Forwards items to another reward service over NATS with the shared batch contract. */
export function createRemoteScorer(nc: NatsConnection | undefined, timeoutMs: number) {
  return async function runRemote(subject: string, items: BatchItem[], signal: AbortSignal | undefined): Promise<SlotResult[]> {
    if (nc === undefined) {
      throw new AppError(ErrorCode.SandboxUnavailable, `NATS is disabled, so ${subject} cannot be reached`, { status: 503 });
    }
    signal?.throwIfAborted();
    const reply = await requestJson(nc, subject, { items }, { timeoutMs, response: ScoreResponse });
    return reply.results as SlotResult[];
  };
}
