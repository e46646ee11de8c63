// A worker whose actor runs on the torch engine generates in the engine's child
// (rollout.mode: embedded, validation): the log-probs the jax-js worker gives the
// same initial weights, the current weights after an update, and no weights
// exported for it. Skipped without torch.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TorchTrainer } from '@rl/policy';
import { ActorLossSchema, GenerateRequest } from './protocol.ts';
import { PolicyWorkerCore } from './worker-core.ts';
import { WorkerSpec } from './worker-spec.ts';
import { TOKEN_MEAN_PPO, tinyWorkerModel } from './testing/worker-spec.ts';

const HAS_TORCH = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
const SLOW_MS = 120_000;

const spec = (kind: 'jax' | 'torch') =>
  WorkerSpec.parse({
    job: 't',
    model: tinyWorkerModel(11),
    engine: { kind, gradient_checkpointing: false },
    optim: { lr: 0.05, weight_decay: 0, betas: [0.9, 0.999], grad_clip: 1 },
    loss: { ...TOKEN_MEAN_PPO, loss_scale_factor: 8 },
    weights: { bucket: 'b', name: 'actor' },
  });
const PPO = ActorLossSchema.parse({ ...TOKEN_MEAN_PPO, ppo_epochs: 1, ppo_mini_batch_size: 64, grad_clip: 1, lr: 0.05 });
const REQUEST = GenerateRequest.parse({
  prompts: [
    [5, 6, 14],
    [6, 14],
    [7, 8, 9, 10],
  ],
  sampling: { temperature: 0, max_tokens: 8 },
});

describe.skipIf(!HAS_TORCH)('a worker on the torch engine', () => {
  it(
    "generates in the engine's child: the jax-js worker's log-probs, the new weights after an update, no weights exported",
    async () => {
      const jax = await PolicyWorkerCore.create(spec('jax'));
      const torch = await PolicyWorkerCore.create(spec('torch'));
      try {
        const b = await torch.generate(REQUEST);
        expect(b.version).toBe('v0');
        expect(b.generations.map((g) => [g.token_ids.length, g.finish_reason])).toEqual(REQUEST.prompts.map(() => [8, 'length']));
        // (Token-for-token parity with the embedded policy is torch-generate.test.ts's, on a model whose greedy choices are not near-ties.)
        const a = await jax.logprobs({
          model: 'actor',
          pairs: REQUEST.prompts.map((prompt, i) => ({ prompt, response: b.generations[i]!.token_ids })),
          entropy: false,
        });
        b.generations.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(a.logprobs[i]![j]!, 4)));

        // One PPO update raising the first row's tokens.
        const first = b.generations[0]!;
        const prompt = REQUEST.prompts[0]!;
        await torch.update({
          step: 0,
          seed: 0,
          loss: PPO,
          batch: [
            {
              prompt,
              response: first.token_ids,
              response_mask: first.token_ids.map(() => 1),
              advantages: first.token_ids.map(() => 1),
              old_logprobs: first.logprobs,
            },
          ],
        });
        const after = await torch.generate(REQUEST);
        expect(after.version).toBe('v1');
        // What it reports is the updated actor's: its own log-probs of what it sampled, not v0's.
        const pairs = REQUEST.prompts.map((p, i) => ({ prompt: p, response: after.generations[i]!.token_ids }));
        const scored = await torch.logprobs({ model: 'actor', pairs, entropy: false });
        after.generations.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(lp).toBeCloseTo(scored.logprobs[i]![j]!, 5)));
        const v0 = await jax.logprobs({ model: 'actor', pairs: [{ prompt, response: first.token_ids }], entropy: false });
        const v1 = await torch.logprobs({ model: 'actor', pairs: [{ prompt, response: first.token_ids }], entropy: false });
        expect(v1.logprobs[0]!.reduce((s, x) => s + x, 0)).toBeGreaterThan(v0.logprobs[0]!.reduce((s, x) => s + x, 0) + 0.01);

        const costs = (torch.trainer as TorchTrainer).boundaryCosts();
        expect(costs.generate?.requests).toBe(2);
        expect(costs.weights).toBeUndefined();
      } finally {
        jax.dispose();
        torch.dispose();
      }
    },
    SLOW_MS,
  );
});
