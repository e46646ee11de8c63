export { createRewardClient, RETRYABLE_CODES, type RewardClient, type RewardClientOptions } from './reward-client.ts';
export type { RewardBatchResult, RewardItem, RewardResult, RewardStats, ScoreTransport } from './reward-types.ts';
export { compileRoutes, resolveRoute, type RouteTable } from './route-table.ts';
export { DEFAULT_REWARD_ROUTES, DEFAULT_ROUTE_KEY, RULES_SUBJECT, SANDBOX_SUBJECT, STORY_SUBJECT } from './default-routes.ts';
export { backoffDelayMs, type BackoffOptions } from './backoff.ts';
export { natsScoreTransport } from './nats-transport.ts';
export { signalsPredicate } from './signals-routing.ts';
export { rewardClientOptions } from './from-config.ts';
