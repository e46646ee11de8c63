import type { EndpointSpec } from '@rl/service-kit';
import type { ScoreService } from './score-service.ts';
import { SCORE_SUBJECT } from './subjects.ts';

/** NATS endpoints of the rule-reward service: the same core call as `POST /v1/score`, same body. */
export function natsEndpoints(svc: ScoreService): EndpointSpec[] {
  return [{ name: 'score', subject: SCORE_SUBJECT, handleRaw: (data, ctx) => svc.score(data, ctx) }];
}
