import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelDir } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointLayout } from './checkpoint-layout.ts';
import { UpdateCriticRequest } from './protocol.ts';
import { PolicyWorkerCore } from './worker-core.ts';
import { WorkerSpec } from './worker-spec.ts';
import { tinyWorkerModel } from './testing/worker-spec.ts';

const SPEC = WorkerSpec.parse({
  job: 'c',
  model: tinyWorkerModel(3),
  optim: { lr: 0.01, weight_decay: 0, betas: [0.9, 0.999], grad_clip: 1 },
  critic: {
    optim: { lr: 0.02, weight_decay: 0, betas: [0.9, 0.999], grad_clip: 1 },
    cliprange_value: 10,
    loss_agg_mode: 'token-mean',
    loss_scale_factor: 4,
    path: null,
    seed: 5,
  },
  weights: { bucket: 'b', name: 'actor' },
});
const pairs = [
  { prompt: [5, 6, 14], response: [7, 8] },
  { prompt: [6, 14], response: [9, 4] },
];
const widths = { prompt_width: 8, response_width: 8 };

let core: PolicyWorkerCore;
let dir: string;
beforeAll(async () => {
  core = await PolicyWorkerCore.create(SPEC);
  dir = mkdtempSync(join(tmpdir(), 'critic-ckpt-'));
}, 60_000);
afterAll(() => {
  core.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('the critic of a GAE job', () => {
  it('moves its values towards the returns with verl update_critic steps, leaving the actor alone', async () => {
    const actorBefore = await core.logprobs({ model: 'actor', pairs, entropy: false });
    const returns = [
      [1, 1],
      [-1, -1],
    ];
    const dist = (v: number[][]) => v.flat().reduce((s, x, i) => s + (x - returns.flat()[i]!) ** 2, 0);
    const before = (await core.critic.values({ pairs, ...widths })).values;
    let last: Record<string, number> = {};
    for (let step = 0; step < 20; step++) {
      const values = (await core.critic.values({ pairs, ...widths })).values;
      last = (
        await core.critic.update(
          UpdateCriticRequest.parse({
            step,
            ...widths,
            loss: { ppo_epochs: 1, ppo_mini_batch_size: 2, lr: 0.02 },
            batch: pairs.map((p, i) => ({ ...p, response_mask: [1, 1], values: values[i]!, returns: returns[i]! })),
          }),
        )
      ).metrics;
    }
    const after = (await core.critic.values({ pairs, ...widths })).values;
    expect(dist(after)).toBeLessThan(dist(before) / 4);
    expect(Object.keys(last).sort()).toEqual([
      'critic/grad_norm',
      'critic/lr',
      'critic/update_skipped',
      'critic/vf_clipfrac',
      'critic/vf_loss',
      'critic/vpred_mean',
    ]);
    expect((await core.logprobs({ model: 'actor', pairs, entropy: false })).logprobs).toEqual(actorBefore.logprobs);
  }, 120_000);

  it('is saved with the policy checkpoint and restored exactly', async () => {
    await core.saveCheckpoint(dir);
    const restored = await PolicyWorkerCore.fromCheckpoint(SPEC, dir);
    expect((await restored.critic.values({ pairs, ...widths })).values).toEqual((await core.critic.values({ pairs, ...widths })).values);
    expect(restored.critic.updates).toBe(core.critic.updates);
    restored.dispose();
    // The critic is a one-label token-classification model without an LM head (verl's critic).
    const hf = checkpointLayout(dir).critic.hf;
    expect(JSON.parse(readFileSync(join(hf, 'config.json'), 'utf8'))).toMatchObject({ architectures: ['Qwen3ForTokenClassification'], num_labels: 1 });
    const critic = await loadModelDir(hf);
    expect(critic.config.valueHead).toBe(true);
    expect(Object.keys(critic.params)).toEqual(expect.arrayContaining(['score.weight', 'score.bias']));
    expect(Object.keys(critic.params)).not.toContain('lm_head.weight');
  }, 60_000);
});
