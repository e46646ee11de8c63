import { parsedEndpoint, type EndpointSpec } from '@rl/service-kit';
import { runRollouts, type RolloutDeps } from './core/rollout/run-rollouts.ts';
import { RolloutRequest } from './schemas/rollout.ts';
import { ROLLOUT_SUBJECT } from './subjects.ts';

/** NATS endpoints of the generation service: the same core call and body as `POST /v1/rollouts`. */
export function natsEndpoints(deps: RolloutDeps): EndpointSpec[] {
  return [
    parsedEndpoint({
      name: 'generate',
      subject: ROLLOUT_SUBJECT,
      request: RolloutRequest,
      handle: (req, ctx) => runRollouts(req, deps, ctx.signal),
    }),
  ];
}
