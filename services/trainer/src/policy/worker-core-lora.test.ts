// A LoRA actor on each engine: the base stays frozen and is the reference policy, the adapters train, the
// checkpoint holds the adapter in PEFT's format beside the merged model and resumes exactly, and the final
// models are the merged hf_model and its lora_adapter.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWeights, mergeAdapter, parseAdapterConfig, readAdapterDir } from '@rl/policy';
import { checkpointLayout } from './checkpoint-layout.ts';
import { ActorLossSchema } from './protocol.ts';
import { PolicyWorkerCore } from './worker-core.ts';
import { WorkerSpec } from './worker-spec.ts';
import { tinyWorkerModel } from './testing/worker-spec.ts';

const HAS_TORCH = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;

const spec = (kind: 'jax' | 'torch', extra: Record<string, unknown> = {}) =>
  WorkerSpec.parse({
    job: 't',
    model: tinyWorkerModel(7),
    engine: { kind, gradient_checkpointing: false },
    lora: { rank: 4, alpha: 8, target_modules: 'all-linear' },
    optim: { lr: 0.05, weight_decay: 0, betas: [0.9, 0.999], grad_clip: 1 },
    loss: {
      clip_ratio_low: 0.2,
      clip_ratio_high: 0.28,
      clip_ratio_c: 3,
      loss_agg_mode: 'token-mean',
      entropy_coeff: 0,
      use_kl_loss: true,
      kl_loss_coef: 0.01,
      kl_loss_type: 'low_var_kl',
      loss_scale_factor: 8,
    },
    weights: { bucket: 'b', name: 'actor', format: 'adapter' },
    ...extra,
  });
const PPO = ActorLossSchema.parse({
  clip_ratio_low: 0.2,
  clip_ratio_high: 0.28,
  clip_ratio_c: 3,
  loss_agg_mode: 'token-mean' as const,
  entropy_coeff: 0,
  use_kl_loss: true,
  kl_loss_coef: 0.01,
  kl_loss_type: 'low_var_kl',
  ppo_epochs: 1,
  ppo_mini_batch_size: 64,
  grad_clip: 1,
  lr: 0.05,
});
const PROMPT = [5, 6, 14];
const GOOD = [9, 9];
const BAD = [8, 8];
const PAIRS = [
  { prompt: PROMPT, response: GOOD },
  { prompt: [6, 14], response: [10, 4, 7] },
];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function update(core: PolicyWorkerCore, step: number) {
  const lp = await core.logprobs({
    model: 'actor',
    pairs: [
      { prompt: PROMPT, response: GOOD },
      { prompt: PROMPT, response: BAD },
    ],
    entropy: false,
  });
  const ref = await core.logprobs({
    model: 'ref',
    pairs: [
      { prompt: PROMPT, response: GOOD },
      { prompt: PROMPT, response: BAD },
    ],
    entropy: false,
  });
  return core.update({
    step,
    seed: step,
    loss: PPO,
    batch: [
      { prompt: PROMPT, response: GOOD, response_mask: [1, 1], advantages: [1, 1], old_logprobs: lp.logprobs[0]!, ref_logprobs: ref.logprobs[0]! },
      { prompt: PROMPT, response: BAD, response_mask: [1, 1], advantages: [-1, -1], old_logprobs: lp.logprobs[1]!, ref_logprobs: ref.logprobs[1]! },
    ],
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each([
  ['jax', true],
  ['torch', HAS_TORCH],
] as const)('a LoRA actor on the %s engine', (kind, available) => {
  it.skipIf(!available)(
    'trains the adapters on the frozen base, which is the reference; checkpoints in PEFT format and resumes exactly',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), `lora-core-${kind}-`));
      dirs.push(dir);
      const core = await PolicyWorkerCore.create(spec(kind));
      try {
        const base = (await core.logprobs({ model: 'ref', pairs: PAIRS, entropy: false })).logprobs;
        // A fresh adapter (B = 0) leaves the model as it is.
        const fresh = (await core.logprobs({ model: 'actor', pairs: PAIRS, entropy: false })).logprobs;
        for (const [i, row] of fresh.entries()) for (const [j, v] of row.entries()) expect(v).toBeCloseTo(base[i]![j]!, 5);
        for (let step = 0; step < 4; step++) expect((await update(core, step)).metrics['actor/grad_norm']).toBeGreaterThan(0);
        const actor = (await core.logprobs({ model: 'actor', pairs: PAIRS, entropy: false })).logprobs;
        expect(sum(actor[0]!)).toBeGreaterThan(sum(base[0]!) + 0.05);
        // The reference is still the base.
        expect((await core.logprobs({ model: 'ref', pairs: PAIRS, entropy: false })).logprobs).toEqual(base);

        await core.saveCheckpoint(dir);
        const at = checkpointLayout(dir).actor;
        expect(readdirSync(at.loraAdapter).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
        const adapter = await readAdapterDir(at.loraAdapter);
        expect(adapter.settings).toMatchObject({ r: 4, loraAlpha: 8, valueHead: false });
        // The checkpoint's reference copy is the untouched base, and base + adapter is the checkpoint's merged actor.
        const refWeights = await loadWeights(at.ref);
        const whole = await PolicyWorkerCore.create(spec('jax', { lora: undefined, weights: { bucket: 'b', name: 'actor' } }));
        const initial = await whole.exportWeights();
        whole.dispose();
        for (const [name, t] of Object.entries(initial.params)) expect(refWeights.params[name]!.data).toEqual(t.data);
        const merged = mergeAdapter(refWeights, adapter);
        const exported = await core.exportWeights();
        for (const [name, t] of Object.entries(exported.params)) {
          const m = merged.params[name]!.data;
          for (let i = 0; i < t.data.length; i++) expect(Math.abs((t.data[i] as number) - (m[i] as number))).toBeLessThan(1e-5);
        }
        const object = await core.adapterObject();
        expect(parseAdapterConfig(JSON.parse(object.adapterConfig))).toMatchObject({ r: 4, loraAlpha: 8 });

        // Resume: the same actor, reference and optimizer state: one more identical update gives identical results.
        const restored = await PolicyWorkerCore.fromCheckpoint(spec(kind), dir);
        try {
          expect(restored.version).toBe(core.version);
          expect((await restored.logprobs({ model: 'actor', pairs: PAIRS, entropy: false })).logprobs).toEqual(actor);
          expect((await restored.logprobs({ model: 'ref', pairs: PAIRS, entropy: false })).logprobs).toEqual(base);
          const a = await update(core, 4);
          const b = await update(restored, 4);
          expect(b.metrics['actor/grad_norm']).toBe(a.metrics['actor/grad_norm']);
          expect((await restored.logprobs({ model: 'actor', pairs: PAIRS, entropy: false })).logprobs).toEqual(
            (await core.logprobs({ model: 'actor', pairs: PAIRS, entropy: false })).logprobs,
          );
        } finally {
          restored.dispose();
        }
        expect(await core.saveFinalModels(dir)).toEqual([join(dir, 'hf_model'), join(dir, 'lora_adapter')]);
        expect(readdirSync(join(dir, 'lora_adapter')).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
      } finally {
        core.dispose();
      }
    },
    180_000,
  );
});

describe('LoRA refusals', () => {
  it('a target the model does not have names the job key; an adapter to publish needs LoRA; a worker without LoRA has no adapter', async () => {
    await expect(PolicyWorkerCore.create(spec('jax', { lora: { rank: 2, alpha: 4, target_modules: ['model.layers.3.mlp.down_proj'] } }))).rejects.toThrow(
      'actor_rollout_ref.model: target_modules: "model.layers.3.mlp.down_proj" is not a module of the model',
    );
    await expect(PolicyWorkerCore.create(spec('jax', { lora: undefined }))).rejects.toThrow('weights.format: "adapter" needs LoRA');
    const full = await PolicyWorkerCore.create(spec('jax', { lora: undefined, weights: { bucket: 'b', name: 'actor' } }));
    try {
      await expect(full.adapterObject()).rejects.toThrow('trains no LoRA adapter');
    } finally {
      full.dispose();
    }
  }, 60_000);
});
