export { httpCallContext, type RewardCallContext } from './call-context.ts';
export { continueTrace, REWARD_EDGE_TRACER, SCORE_SPAN } from './continue-trace.ts';
export { scoreRoute, type ScoreRoute, type ScoreRouteDoc } from './score-route.ts';
export { addScoreProtocolRoutes, addScoreRoute, type HttpScorer } from './score-routes.ts';
export { scoreEndpoint, type ItemScoreEndpoint, type RawScoreEndpoint } from './score-endpoint.ts';
export { rawBatchScorer, type BatchScorer, type ItemScorer, type RawScorer } from './scorer.ts';
export { addProtocolRoutes, protocolRoutes, REWARD_ERROR_HEADER } from './protocol-routes.ts';
