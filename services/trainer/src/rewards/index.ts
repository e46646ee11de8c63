export { rewardClientOptions } from './from-config.ts';
export { signalsPredicate } from './signals-routing.ts';
// The reward client is @rl/client's; the controller's files that name its types from here may name them from @rl/client.
export type { RewardClient, RewardItem, RewardResult } from '@rl/client';
