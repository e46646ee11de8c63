// Public surface of `@rl/client`: scoring over the reward services.
// The reward client (routing by data_source, batching, retries, no lost item) and its NATS transport:
export { createRewardClient, type RewardClient, type RewardClientOptions } from './reward-client.ts';
export type { RewardBatchResult, RewardItem, RewardResult, RewardStats, ScoreTransport } from './reward-types.ts';
export { natsScoreTransport } from './nats-score-transport.ts';
// The default route table and the reward subjects it names:
export { DEFAULT_REWARD_ROUTES, SANDBOX_SUBJECT, STORY_SUBJECT } from './default-routes.ts';
export { compileRoutes, resolveRoute } from './route-table.ts';
// One reward service at one address, over HTTP or NATS (what rl-rewards scores with):
export { httpScoreEndpoint, natsScoreEndpoint, type NatsCredentials, type ScoreEndpoint } from './score-endpoints.ts';
