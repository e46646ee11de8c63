export { createRewardClient, type RewardClient } from './reward-client.ts';
export { natsScoreTransport } from './nats-transport.ts';
export { signalsPredicate } from './signals-routing.ts';
export { rewardClientOptions } from './from-config.ts';
