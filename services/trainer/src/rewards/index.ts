export { rewardClientOptions } from './from-config.ts';
export { signalsPredicate } from './signals-routing.ts';
