import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lossOnLeaves } from '@rl/policy';
import { checkpointLayout } from './checkpoint-layout.ts';
import { PolicyWorkerCore } from './worker-core.ts';
import { ActorLossSchema } from './protocol.ts';
import { WorkerSpec } from './worker-spec.ts';
import { TOKEN_MEAN_PPO, tinyWorkerModel } from './testing/worker-spec.ts';

const SPEC = WorkerSpec.parse({
  job: 't',
  model: tinyWorkerModel(7),
  optim: { lr: 0.01, weight_decay: 0, betas: [0.9, 0.999], grad_clip: 1 },
  loss: { ...TOKEN_MEAN_PPO, loss_scale_factor: 8 },
  weights: { bucket: 'b', name: 'actor' },
});
const PPO = ActorLossSchema.parse({
  ...TOKEN_MEAN_PPO,
  ppo_epochs: 1,
  ppo_mini_batch_size: 64,
  grad_clip: 1,
  lr: 0.01,
});

let core: PolicyWorkerCore;
let dir: string;
beforeAll(async () => {
  core = await PolicyWorkerCore.create(SPEC);
  dir = mkdtempSync(join(tmpdir(), 'policy-ckpt-'));
}, 60_000);
afterAll(() => {
  core.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('PolicyWorkerCore', () => {
  it('computes the same PPO loss in its fused step as on the log-probs it scores (lossOnLeaves, what the torch engine runs)', async () => {
    const pairs = [
      { prompt: [5, 6, 14], response: [7, 8, 9] },
      { prompt: [6, 14], response: [10, 4] },
    ];
    const scored = await core.logprobs({ model: 'actor', pairs, entropy: true });
    // Old log-probs shifted so some ratios fall outside the clip range, both signs of advantage.
    const old = scored.logprobs.map((lp, i) => lp.map((v, j) => v + (i === 0 ? 0.3 * (j - 1) : -0.25)));
    const adv = [
      [1, 1, 1],
      [-1.5, -1.5],
    ];
    const mask = [
      [1, 1, 0],
      [1, 1],
    ];
    const batch = { pairs, inputs: { advantages: adv, old_logprobs: old, response_mask: mask, ref_logprobs: old } };
    const res = await core.trainer.accumulate(batch, core.loss);
    await core.trainer.applyGradients({ lr: 0 });
    // The loss itself is checked against verl's golden numbers in losses/losses.golden.test.ts.
    const leaves = { logprobs: scored.logprobs.map((l) => Float32Array.from(l)), entropy: (scored.entropies ?? []).map((l) => Float32Array.from(l)) };
    const expected = await lossOnLeaves(core.loss, batch, leaves);
    expect(expected.metrics['actor/pg_clipfrac']).toBeGreaterThan(0);
    expect(res.loss).toBeCloseTo(expected.loss, 4);
    expect(res.metrics['actor/pg_clipfrac']).toBeCloseTo(expected.metrics['actor/pg_clipfrac'] ?? NaN, 4);
    expect(res.metrics['actor/ppo_kl']).toBeCloseTo(expected.metrics['actor/ppo_kl'] ?? NaN, 4);
    expect(res.metrics['actor/pg_clipfrac_lower']).toBeCloseTo(expected.metrics['actor/pg_clipfrac_lower'] ?? NaN, 4);
  }, 60_000);

  it('scores listed responses again after their prompts without r: equal to scoring those pairs on their own', async () => {
    const pairs = [
      { prompt: [5, 6, 14, 7, 8], response: [9, 9, 3] },
      { prompt: [5, 14], response: [8] },
    ];
    const bare = [6, 14];
    const res = await core.logprobs({ model: 'actor', pairs, entropy: true, without_context: [{ index: 0, prompt: bare }] });
    const alone = await core.logprobs({ model: 'actor', pairs: [{ prompt: bare, response: pairs[0]!.response }], entropy: false });
    expect(res.logprobs.map((l) => l.length)).toEqual([3, 1]);
    expect(res.entropies!.map((l) => l.length)).toEqual([3, 1]);
    expect(res.logprobs_without_context).toHaveLength(1);
    res.logprobs_without_context![0]!.forEach((v, j) => expect(v).toBeCloseTo(alone.logprobs[0]![j]!, 4));
    // Without r the reply is scored under another prompt: its log-probs differ.
    expect(res.logprobs_without_context![0]).not.toEqual(res.logprobs[0]);
    await expect(core.logprobs({ model: 'actor', pairs, entropy: false, without_context: [{ index: 2, prompt: bare }] })).rejects.toThrow(
      'without_context[0].index: 2 is not a pair',
    );
  }, 60_000);

  it('raises the probability of rewarded responses with PPO updates, and bumps the version', async () => {
    const prompt = [5, 6, 14];
    const good = [9, 9];
    const bad = [8, 8];
    const before = await core.logprobs({ model: 'actor', pairs: [{ prompt, response: good }], entropy: false });
    const v0 = core.version;
    for (let step = 0; step < 5; step++) {
      const lp = await core.logprobs({
        model: 'actor',
        pairs: [
          { prompt, response: good },
          { prompt, response: bad },
        ],
        entropy: false,
      });
      const out = await core.update({
        step,
        seed: step,
        loss: PPO,
        batch: [
          { prompt, response: good, response_mask: [1, 1], advantages: [1, 1], old_logprobs: lp.logprobs[0]! },
          { prompt, response: bad, response_mask: [1, 1], advantages: [-1, -1], old_logprobs: lp.logprobs[1]! },
        ],
      });
      expect(Number.isFinite(out.metrics['actor/pg_loss'])).toBe(true);
      expect(out.metrics['actor/grad_norm']).toBeGreaterThan(0);
    }
    const after = await core.logprobs({ model: 'actor', pairs: [{ prompt, response: good }], entropy: false });
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(after.logprobs[0]!)).toBeGreaterThan(sum(before.logprobs[0]!) + 0.1);
    expect(core.version).not.toBe(v0);
    // The reference model stays at the initial weights.
    const ref = await core.logprobs({ model: 'ref', pairs: [{ prompt, response: good }], entropy: false });
    expect(sum(ref.logprobs[0]!)).toBeCloseTo(sum(before.logprobs[0]!), 4);
  }, 120_000);

  it('restores actor, reference and optimizer from a checkpoint whose actor is a Hugging Face directory', async () => {
    await core.saveCheckpoint(dir);
    const restored = await PolicyWorkerCore.fromCheckpoint(SPEC, dir);
    const pairs = [{ prompt: [5, 6, 14], response: [9, 9] }];
    const actor = (await core.logprobs({ model: 'actor', pairs, entropy: false })).logprobs;
    expect((await restored.logprobs({ model: 'actor', pairs, entropy: false })).logprobs).toEqual(actor);
    expect((await restored.logprobs({ model: 'ref', pairs, entropy: false })).logprobs).toEqual(
      (await core.logprobs({ model: 'ref', pairs, entropy: false })).logprobs,
    );
    restored.dispose();
    const hf = checkpointLayout(dir).actor.hf;
    const config = JSON.parse(readFileSync(join(hf, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ architectures: ['Qwen3ForCausalLM'], num_attention_heads: 2, num_key_value_heads: 1, hidden_size: 16 });
    expect(readdirSync(hf).sort()).toEqual(expect.arrayContaining(['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer_config.json']));
    // The directory is a model to start a job from: a worker whose model.path names it has that actor.
    const started = await PolicyWorkerCore.create({ ...SPEC, model: { ...SPEC.model, path: hf } });
    expect((await started.logprobs({ model: 'ref', pairs, entropy: false })).logprobs).toEqual(actor);
    started.dispose();
    // The final model (no critic in this job) is the same directory at the job's hf_model.
    expect(await core.saveFinalModels(dir)).toEqual([join(dir, 'hf_model')]);
    const final = await PolicyWorkerCore.create({ ...SPEC, model: { ...SPEC.model, path: join(dir, 'hf_model') } });
    expect((await final.logprobs({ model: 'ref', pairs, entropy: false })).logprobs).toEqual(actor);
    final.dispose();
  }, 60_000);
});
