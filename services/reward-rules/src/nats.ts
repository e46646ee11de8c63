import { scoreEndpoint, type EndpointSpec } from '@rl/service-kit';
import type { ScoreService } from './score-service.ts';
import { SCORE_SUBJECT } from './subjects.ts';

/** NATS endpoints of the rule-reward service: the same core call as `POST /v1/score`, same body. */
export function natsEndpoints(svc: ScoreService): EndpointSpec[] {
  return [scoreEndpoint({ subject: SCORE_SUBJECT, scoreRaw: (data, ctx) => svc.score(data, ctx) })];
}
