// Rollouts from the generation service (NATS `rollout.generate`), on exactly
// the weights version the policy worker just published (the service waits for
// it to load; on-policy like verl's weight sync before generation). The NATS
// side of core's RolloutPort; the loop never sees the bus.
import type { NatsConnection } from '@nats-io/transport-node';
import { dataSourceAttributes, requestJson, SpanAttr, withNatsClientSpan } from '@rl/service-kit';
import { z } from 'zod';
import { createComputeMeter, type RolloutPort, type RolloutResult, type RolloutSampling } from '../core/controller/ports.ts';
import { toMessages } from '../core/controller/to-messages.ts';

const Slot = z.union([
  z.object({
    group: z.number().int(),
    uid: z.string(),
    prompt_ids: z.array(z.number()),
    response_ids: z.array(z.number()),
    response_mask: z.array(z.number()),
    messages: z.array(z.object({ role: z.string(), content: z.string() })).optional(),
    model_version: z.string(),
  }),
  z.object({ group: z.number().int(), uid: z.string(), error: z.object({ code: z.string(), message: z.string() }) }),
]);
/** A trajectory handed over as it finishes (the generation service's progress messages). */
const Progress = z.object({ index: z.number().int().nonnegative(), slot: Slot });
const Reply = z.object({ results: z.array(Slot), usage: z.object({ wall_s: z.number() }).partial().optional() });

/** A RolloutPort over NATS request/reply to the generation service at `subject`. */
export function createRemoteRollout(nc: NatsConnection, subject: string, timeoutMs: number, maxResponseTokens: number): RolloutPort {
  const compute = createComputeMeter();
  return {
    takeComputeSeconds: compute.take,
    async rollout(rows, s: RolloutSampling, modelVersion, signal, onResult) {
      signal.throwIfAborted();
      const samples = rows.map((r, i) => ({
        prompt: toMessages(r),
        data_source: r.data_source,
        agent_name: r.agent_name ?? undefined,
        tools_kwargs: r.tools_kwargs,
        interaction_kwargs: Object.keys(r.interaction_kwargs).length > 0 ? r.interaction_kwargs : undefined,
        extra_info: r.extra_info,
        uid: `r${r.row_id}-${i}`,
      }));
      // A client span (named after the subject) the generation service's span is a child of.
      const attributes = { ...dataSourceAttributes(samples), [SpanAttr.ModelVersion]: modelVersion, 'rl.n': s.n };
      const reply = await withNatsClientSpan(subject, attributes, () =>
        requestJson(
          nc,
          subject,
          {
            samples,
            n: s.n,
            sampling: { temperature: s.temperature, top_p: s.topP, top_k: s.topK, max_tokens: s.maxTokens, seed: s.seed },
            limits: { max_response_tokens: maxResponseTokens },
            include_messages: true,
            model_version: modelVersion,
          },
          {
            timeoutMs,
            response: Reply,
            // Each trajectory as it finishes; the reply repeats them all, so a lost one is only late.
            ...(onResult && {
              onProgress: (p: unknown) => {
                const parsed = Progress.safeParse(p);
                if (parsed.success) onResult(parsed.data.index, toResult(parsed.data.slot, modelVersion));
              },
            }),
          },
        ),
      );
      compute.add(reply.usage?.wall_s);
      return reply.results.map((slot) => toResult(slot, modelVersion));
    },
  };
}

function toResult(slot: z.infer<typeof Slot>, modelVersion: string): RolloutResult {
  if ('error' in slot) return { row: slot.group, uid: slot.uid, promptIds: [], responseIds: [], responseMask: [], text: '', modelVersion, error: slot.error };
  const last = slot.messages?.filter((m) => m.role === 'assistant').at(-1)?.content ?? '';
  return {
    row: slot.group,
    uid: slot.uid,
    promptIds: slot.prompt_ids,
    responseIds: slot.response_ids,
    responseMask: slot.response_mask,
    text: last,
    modelVersion: slot.model_version,
  };
}
