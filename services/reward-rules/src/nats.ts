import { ScoreRequest, type EndpointSpec } from '@rl/shared';
import type { ScoreService } from './score-service.ts';
import { SCORE_SUBJECT } from './subjects.ts';

/** NATS endpoints of the rule-reward service: the same core call as `POST /v1/score`. */
export function natsEndpoints(svc: ScoreService): Array<EndpointSpec<ScoreRequest>> {
  return [
    {
      name: 'score',
      subject: SCORE_SUBJECT,
      request: ScoreRequest,
      handle: async (req, ctx) => ({ results: await svc.score(req.items, ctx.signal) }),
    },
  ];
}
