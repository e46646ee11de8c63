import { scoreEndpoint, type EndpointSpec } from '@rl/service-kit';
import { ModelScoreRequest } from './schemas.ts';
import type { ScoreService } from './score-service.ts';
import { SCORE_SUBJECT } from './subjects.ts';

/** NATS endpoints of the reward-model service: the same core call and body as `POST /v1/score`. */
export function natsEndpoints(svc: ScoreService): EndpointSpec[] {
  return [scoreEndpoint({ subject: SCORE_SUBJECT, request: ModelScoreRequest, scoreItems: (items, ctx) => svc.score(items, ctx) })];
}
