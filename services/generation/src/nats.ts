import { parsedEndpoint, type EndpointSpec } from '@rl/service-kit';
import type { RolloutDeps } from './core/rollout/run-rollouts.ts';
import { tracedRollouts } from './rollout-trace.ts';
import { RolloutRequest } from './schemas/rollout.ts';
import { ROLLOUT_SUBJECT } from './subjects.ts';

/**
 * NATS endpoints of the generation service: the same core call and body as `POST /v1/rollouts`, continuing the
 * caller's trace. A caller that asks for progress gets each trajectory as it finishes (`{index, slot}`, index
 * into the reply's `results`) ahead of the reply, which still holds them all.
 */
export function natsEndpoints(deps: RolloutDeps): EndpointSpec[] {
  return [
    parsedEndpoint({
      name: 'generate',
      subject: ROLLOUT_SUBJECT,
      request: RolloutRequest,
      handle: (req, ctx) => {
        const progress = ctx.progress;
        return tracedRollouts(req, deps, ctx.signal, 'nats', ctx.traceparent, progress && ((index, slot) => progress({ index, slot })));
      },
    }),
  ];
}
