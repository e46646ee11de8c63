import type { ScoreTransport } from '@rl/client';
import { describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit';
import { parseRlJobConfig } from '../config/index.ts';
import { rewardClientOptions } from './from-config.ts';

describe('rewardClientOptions', () => {
  it('maps reward.* to client options, with the merged route table', () => {
    const config = parseRlJobConfig(
      'data: {train_files: a}\nreward: {retries: 5, concurrency: 2, params: {openai/gsm8k: {method: flexible}}, routes: {my_task: reward.mine.score}}',
    );
    const transport: ScoreTransport = async () => ({ results: [] });
    const o = rewardClientOptions(config.reward, transport, createRng(1));
    expect(o).toMatchObject({ transport, timeoutMs: 30_000, retries: 5, concurrency: 2, maxBatchSize: 256, backoffMs: 200, maxBackoffMs: 5000 });
    expect(o.defaultParams).toEqual({ 'openai/gsm8k': { method: 'flexible' } });
    expect(o.routes).toMatchObject({ my_task: 'reward.mine.score', arithmetic_sequence: 'reward.rules.score', default: 'reward.rules.score' });
  });
});
