// Public surface of the reward-service client (`@rl/client`).
export { httpTransport, natsTransport, type ScoreTransport } from './transports.ts';
