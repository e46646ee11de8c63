// LoRA through the trainer with real parts (nats-server, reward-rules,
// generation, the trainer, its policy worker and, for strategy fsdp, the
// worker's rl_torch_engine child): verl's lora_rank / lora_alpha /
// target_modules keys. A short GRPO job with LoRA on each engine from an SFT
// model: the checkpoint holds the adapter in PEFT's format and the untouched
// base; `rl-policy logprobs --model <base> --adapter <dir>` scores as the
// job's merged hf_model; with rollout.weights_format: adapter the published
// object is the adapter; a job resumes from its LoRA checkpoint. The torch
// engine's case is skipped without torch.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createTokenizer, decodeAdapterObject, decodeSafetensors, loadModelDir, loadWeights, openWeightsStore, readAdapterDir } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestClient } from './support/nats-client.ts';
import type { NatsServer, ServiceProcess } from './support/processes.ts';
import { HAS_TORCH, followJob, jobSteps, startTrainerStack, submitJob, tinySftJob, type TrainerStack } from './support/trainer-jobs.ts';

const RL_POLICY = join(import.meta.dirname, '../shared/policy/bin/rl-policy.ts');
const BUCKET = `rl-lora-${process.pid}`;
let nats: NatsServer;
let nc: NatsConnection;
let stack: TrainerStack;
let trainer: ServiceProcess;
let work: string;

/** `rl-policy logprobs` on `pairs` (a real child process); the log-probs per pair. */
function rlPolicyLogprobs(args: string[], pairs: Array<{ prompt: number[]; response: number[] }>): Promise<number[][]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RL_POLICY, 'logprobs', ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 120_000 });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`rl-policy ${args.join(' ')} exited ${code}: ${err}`));
      else
        resolve(
          out
            .trimEnd()
            .split('\n')
            .map((l) => (JSON.parse(l) as { logprobs: number[] }).logprobs),
        );
    });
    child.stdin.end(pairs.map((p) => JSON.stringify({ prompt_ids: p.prompt, response_ids: p.response })).join('\n'));
  });
}

beforeAll(async () => {
  stack = await startTrainerStack({ prefix: 'rl-lora-', bucket: BUCKET, sftRows: 32, testRows: 4, vocabSize: 300 });
  ({ work, nats, trainer } = stack);
  nc = await connectTestClient(nats.url);
  // The base model every LoRA job starts from: a short SFT on the embedded engine.
  await submitJob(trainer.baseUrl, 'sft', tinySftJob());
  await followJob(trainer.baseUrl, 'sft');
}, 300_000);

afterAll(async () => {
  await nc?.close();
  await stack?.stop();
});

const LORA_RL = (dir: string, strategy: string, rollout: Record<string, unknown>, trainerKeys: Record<string, unknown>) => ({
  data: { train_files: 'rl.parquet', val_files: 'test.parquet', train_batch_size: 2, max_prompt_length: 128, max_response_length: 8 },
  actor_rollout_ref: {
    model: { path: 'sft', lora_rank: 4, lora_alpha: 8, target_modules: 'all-linear' },
    rollout: { n: 2 },
    // The KL loss reads the reference policy: the base with the adapters off. The entropy bonus moves the
    // policy even when every response of a group gets the same reward (no advantage).
    actor: { strategy, optim: { lr: 1e-2 }, use_kl_loss: true, kl_loss_coef: 0.01, entropy_coeff: 0.01 },
  },
  algorithm: { adv_estimator: 'grpo' },
  reward: { params: { 'openai/gsm8k': { method: 'strict' } } },
  rollout: { weights_bucket: BUCKET, timeout_ms: 60_000, ...rollout },
  trainer: { default_local_dir: dir, test_freq: -1, save_freq: 2, ...trainerKeys },
});

const CASES = [
  // The jax engine, rolled out by the generation service on the merged weights the worker publishes.
  { engine: 'jax', strategy: 'embedded', rollout: { weights_name: 'actor' }, available: true },
  // The torch engine, rolled out by the worker itself; the published object is the adapter (what INFERENCE_SYNC=vllm-lora reads).
  { engine: 'torch', strategy: 'fsdp', rollout: { mode: 'embedded', weights_name: 'lora-adapter', weights_format: 'adapter' }, available: HAS_TORCH },
] as const;

describe.each(CASES)('GRPO with LoRA on the $engine engine', ({ engine, strategy, rollout, available }) => {
  it.skipIf(!available)(
    'trains the adapter on the frozen base; PEFT adapter in the checkpoint and beside hf_model; base + adapter scores as hf_model; resumes',
    async () => {
      const dir = `lora-${engine}`;
      await submitJob(trainer.baseUrl, dir, LORA_RL(dir, strategy, rollout, { total_training_steps: 2, resume_mode: 'disable' }));
      const first = jobSteps(await followJob(trainer.baseUrl, dir));
      expect(first.map((m) => m.step)).toEqual([1, 2]);
      for (const m of first) {
        expect(m['reward/error_count']).toBe(0);
        expect(m['actor/grad_norm']).toBeGreaterThan(0);
        expect(Number.isFinite(m['actor/kl_loss'])).toBe(true);
      }
      const ckpt = join(work, dir, 'global_step_2', 'actor');
      expect(readdirSync(join(ckpt, 'lora_adapter')).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
      expect(existsSync(join(ckpt, 'optimizer.bin'))).toBe(true);
      // The base in the checkpoint is the SFT model, unchanged.
      const base = await loadModelDir(join(work, 'sft', 'hf_model'));
      const kept = await loadWeights(join(ckpt, 'ref.safetensors'));
      for (const [name, t] of Object.entries(base.params)) expect(kept.params[name]!.data, name).toEqual(t.data);
      const adapter = await readAdapterDir(join(work, dir, 'lora_adapter'));
      expect(adapter.settings).toMatchObject({ r: 4, loraAlpha: 8 });
      expect(Object.keys(adapter.tensors).every((n) => n.startsWith('base_model.model.model.layers.'))).toBe(true);

      // base + adapter (PEFT's directory, as vLLM and peft load it) scores as the job's merged model.
      const tok = createTokenizer(base.tokenizer);
      const pairs = [
        {
          prompt: tok.applyChatTemplate([{ role: 'user', content: 'Tom has 3 apples and buys 4 more.' }], { addGenerationPrompt: true }),
          response: tok.encode('3 + 4 = 7 #### 7'),
        },
      ];
      const use = ['--engine', engine];
      const merged = await rlPolicyLogprobs(['--model', join(work, dir, 'hf_model'), ...use], pairs);
      const adapted = await rlPolicyLogprobs(['--model', join(work, 'sft', 'hf_model'), '--adapter', join(work, dir, 'lora_adapter'), ...use], pairs);
      const plain = await rlPolicyLogprobs(['--model', join(work, 'sft', 'hf_model'), ...use], pairs);
      adapted[0]!.forEach((v, i) => expect(v, `token ${i}`).toBeCloseTo(merged[0]![i]!, 4));
      expect(Math.max(...plain[0]!.map((v, i) => Math.abs(v - merged[0]![i]!)))).toBeGreaterThan(1e-4); // training changed the policy

      if ('weights_format' in rollout) {
        // The last published object is the adapter the job ended with.
        const os = await openWeightsStore(nc, BUCKET);
        const bytes = await os.getBlob(rollout.weights_name);
        const object = decodeAdapterObject(bytes!, 'published adapter');
        expect(object.version).toBe('v2');
        expect(JSON.parse(object.adapterConfig)).toMatchObject({ r: 4, lora_alpha: 8, peft_type: 'LORA' });
        const tensors = decodeSafetensors(object.weightsFile, 'published adapter').tensors;
        expect(Object.keys(tensors).sort()).toEqual(Object.keys(adapter.tensors).sort());
        for (const [name, t] of Object.entries(adapter.tensors)) expect(tensors[name]!.data, name).toEqual(t.data);
      }

      // Resume from the LoRA checkpoint of step 2: only step 3 runs, from the adapter and optimizer state saved there.
      await submitJob(trainer.baseUrl, `${dir}-resumed`, LORA_RL(dir, strategy, rollout, { total_training_steps: 3, resume_mode: 'auto' }));
      const events = await followJob(trainer.baseUrl, `${dir}-resumed`);
      expect(jobSteps(events).map((m) => m.step)).toEqual([3]);
      const again = await readAdapterDir(join(work, dir, 'lora_adapter'));
      expect(Object.keys(again.tensors).sort()).toEqual(Object.keys(adapter.tensors).sort());
    },
    600_000,
  );
});
