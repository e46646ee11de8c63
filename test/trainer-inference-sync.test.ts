// The trainer's RL job rolled out by an inference server that follows it, all
// real parts: nats-server, reward-rules, the trainer and its policy worker, and
// the generation service's OpenAI backend in token mode in front of a fake
// vLLM / SGLang (test/support/fake-inference-server.ts) that serves completions
// from exactly the files each sync call hands it. A short GRPO job publishes a
// version after every update: a LoRA actor's adapter (rollout.weights_format:
// adapter; trained on the jax-js engine, and on the PyTorch engine where torch
// is installed) that INFERENCE_SYNC=vllm-lora loads with /v1/load_lora_adapter,
// or full weights that INFERENCE_SYNC=sglang loads with /update_weights_from_disk.
// What a user relies on: every version the trainer published reached the
// server, in order, as the files the job's checkpoint holds; every rollout of
// step k was sampled from version k-1 (the server's own log of which load
// served each completion, the model_version of the trajectories the trainer
// received, and their log-probs under the checkpoint's weights); the job
// finishes, and resumes from its checkpoint through the same server.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { decodeSafetensors, loadModelDir, mergeAdapter, type PolicyWeights, policyFromWeights, readAdapterDir } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminCall, type FakeInferenceServer, startFakeInferenceServer } from './support/fake-inference-server.ts';
import { connectTestClient } from './support/nats-client.ts';
import { type ServiceProcess, waitForLine } from './support/processes.ts';
import { followJob, HAS_TORCH, jobSteps, startTrainerStack, submitJob, tinySftJob, type TrainerStack } from './support/trainer-jobs.ts';

const MODEL = 'base-under-test';
const STEPS = 3;
/** train_batch_size × rollout.n: the completions of one step. */
const PER_STEP = 2 * 2;
const VERSIONS = Array.from({ length: STEPS + 1 }, (_, k) => `v${k}`);
/** Sampling with the KV cache against a teacher-forced forward pass of the same weights. */
const SAME = 1e-3;

interface Trajectory {
  prompt_ids: number[];
  response_ids: number[];
  response_logprobs: number[];
  model_version: string;
}

/**
 * The rollouts the trainer asked the generation service for and the replies it got, read off the bus (a plain
 * subscription beside the service's queue group sees each request; its reply subject names the reply).
 */
function watchRollouts(c: NatsConnection) {
  const requests: Array<{ reply: string; body: { model_version?: string } }> = [];
  const replies = new Map<string, Uint8Array>();
  const subs: Subscription[] = [
    c.subscribe('rollout.generate', {
      callback: (_err, m) => {
        if (m.reply !== undefined) requests.push({ reply: m.reply, body: m.json() });
      },
    }),
    c.subscribe('_INBOX.>', {
      callback: (_err, m) => {
        replies.set(m.subject, m.data);
      },
    }),
  ];
  return {
    /** Each rollout request in order: the version asked for and the trajectories of its reply. */
    rollouts: () =>
      requests.map((r) => {
        const data = replies.get(r.reply);
        const reply = data === undefined ? undefined : (JSON.parse(new TextDecoder().decode(data)) as { results: Trajectory[] });
        return { asked: r.body.model_version, trajectories: reply?.results ?? [] };
      }),
    stop: () => subs.forEach((s) => s.unsubscribe()),
  };
}

/** A safetensors file's tensors as comparable values. */
function tensorsOf(bytes: Uint8Array, source: string) {
  const { tensors } = decodeSafetensors(bytes, source);
  return Object.fromEntries(Object.entries(tensors).map(([name, t]) => [name, { shape: t.shape, data: Array.from(t.data) }]));
}

/** Each file of `dir` as comparable values: a safetensors file by its tensors (an adapter object's metadata carries the version), any other by its bytes. */
async function filesIn(dir: string): Promise<Record<string, unknown>> {
  const names = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, comparable(n, await readFile(join(dir, n)), join(dir, n))] as const)));
}

function comparable(name: string, bytes: Buffer, source: string): unknown {
  return name.endsWith('.safetensors') ? tensorsOf(bytes, source) : bytes.toString('base64');
}

const servedFiles = (files: Record<string, Buffer>, source: string) =>
  Object.fromEntries(Object.entries(files).map(([n, b]) => [n, comparable(n, b, `${source} ${n}`)]));

/** The largest gap between the trajectories' sampled log-probs and `weights`' teacher-forced ones. */
async function gap(trajectories: Trajectory[], weights: PolicyWeights): Promise<number> {
  const policy = await policyFromWeights(weights);
  try {
    const lps = await policy.logprobs(trajectories.map((t) => ({ prompt: t.prompt_ids, response: t.response_ids })));
    const gaps = trajectories.flatMap((t, i) => t.response_logprobs.map((lp, j) => Math.abs(lp - (lps[i]?.[j] ?? Number.NaN))));
    if (gaps.length === 0) throw new Error('no sampled tokens to compare');
    return Math.max(...gaps);
  } finally {
    policy.dispose();
  }
}

interface Case {
  sync: 'vllm-lora' | 'sglang';
  /** actor.strategy: `embedded` trains on the jax-js engine, `fsdp` on the PyTorch engine (skipped without torch). */
  strategy: 'embedded' | 'fsdp';
  loadPath: string;
  /** vLLM serves its `--model` (the base) from start and LoRA adapters on it; SGLang here serves what it is handed. */
  serveBase: boolean;
  model: Record<string, unknown>;
  weightsFormat: 'adapter' | 'full';
  /** The published object's files in a checkpoint's actor directory. */
  checkpointDir: string;
  weightsFile: string;
  /** The version a load carried, from the files the server read. */
  versionOf(files: Record<string, Buffer>): string;
  /** The model name rollouts ask for once the server made a load call. */
  modelOf(call: AdminCall): string;
  /** A version's weights as its checkpoint directory holds them (`base`: the SFT model the job starts from). */
  weightsAt(dir: string, base: PolicyWeights): Promise<PolicyWeights>;
}

const LORA: Omit<Case, 'strategy'> = {
  sync: 'vllm-lora',
  loadPath: '/v1/load_lora_adapter',
  serveBase: true,
  model: { path: 'sft', lora_rank: 4, lora_alpha: 8, target_modules: 'all-linear' },
  weightsFormat: 'adapter',
  checkpointDir: 'lora_adapter',
  weightsFile: 'adapter_model.safetensors',
  // The adapter file the sync wrote is the published object's bytes, which carry the version.
  versionOf: (files) => decodeSafetensors(files['adapter_model.safetensors']!, 'adapter').metadata.version ?? '',
  modelOf: (call) => String(call.body.lora_name),
  weightsAt: async (dir, base) => mergeAdapter(base, await readAdapterDir(dir)),
};

const CASES: Case[] = [
  { ...LORA, strategy: 'embedded' },
  { ...LORA, strategy: 'fsdp' },
  {
    sync: 'sglang',
    strategy: 'embedded',
    loadPath: '/update_weights_from_disk',
    serveBase: false,
    model: { path: 'sft' },
    weightsFormat: 'full',
    checkpointDir: 'huggingface',
    weightsFile: 'model.safetensors',
    versionOf: (files) => (JSON.parse(files['config.json']!.toString('utf8')) as { rl_policy_version: string }).rl_policy_version,
    modelOf: () => MODEL,
    weightsAt: (dir) => loadModelDir(dir),
  },
];

describe.each(CASES)('INFERENCE_SYNC=$sync, rollout.weights_format: $weightsFormat, actor.strategy: $strategy', (c) => {
  const bucket = `rl-infsync-${c.sync}-${c.strategy}-${process.pid}`;
  let stack: TrainerStack;
  let fake: FakeInferenceServer;
  let gen: ServiceProcess;
  let nc: NatsConnection;
  const skip = c.strategy === 'fsdp' && !HAS_TORCH;

  beforeAll(async () => {
    if (skip) return;
    stack = await startTrainerStack({ prefix: 'rl-infsync-', bucket, sftRows: 32, testRows: 4, vocabSize: 300, deferGeneration: true });
    nc = await connectTestClient(stack.nats.url);
    // The model the RL job starts from (with LoRA, the base vLLM serves as `--model`): a short SFT.
    await submitJob(stack.trainer.baseUrl, 'sft', tinySftJob());
    await followJob(stack.trainer.baseUrl, 'sft');
    fake = await startFakeInferenceServer(MODEL, c.serveBase ? { baseDir: join(stack.work, 'sft', 'hf_model') } : {});
    gen = await stack.startGeneration({
      GENERATION_BACKEND: 'openai',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_MODEL: MODEL,
      OPENAI_MODE: 'tokens',
      INFERENCE_SYNC: c.sync,
      INFERENCE_SYNC_DIR: join(stack.work, 'inference-sync'),
    });
  }, 300_000);

  const rlJob = (steps: number, resume: 'disable' | 'auto') => ({
    data: { train_files: 'rl.parquet', train_batch_size: 2, max_prompt_length: 128, max_response_length: 8 },
    actor_rollout_ref: {
      model: c.model,
      rollout: { n: 2 },
      // The entropy bonus moves the policy even when every response of a group gets the same reward.
      actor: { strategy: c.strategy, optim: { lr: 1e-2 }, entropy_coeff: 0.01 },
    },
    algorithm: { adv_estimator: 'grpo' },
    reward: { params: { 'openai/gsm8k': { method: 'strict' } } },
    rollout: { mode: 'remote', weights_bucket: bucket, weights_name: 'actor', weights_format: c.weightsFormat, timeout_ms: 120_000 },
    trainer: { default_local_dir: 'rl', total_training_steps: steps, save_freq: 1, test_freq: -1, val_before_train: false, resume_mode: resume },
  });
  const checkpointOf = (step: number) => join(stack.work, 'rl', `global_step_${step}`, 'actor', c.checkpointDir);

  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
    await fake?.close();
  });

  it.skipIf(skip)(
    'every published version reaches the server as the checkpoint holds it, and step k samples from version k-1',
    { timeout: 600_000 },
    async () => {
      const bus = watchRollouts(nc);
      await submitJob(stack.trainer.baseUrl, 'rl', rlJob(STEPS, 'disable'));
      const steps = jobSteps(await followJob(stack.trainer.baseUrl, 'rl'));
      expect(steps.map((m) => m.step)).toEqual([1, 2, 3]);
      for (const m of steps) {
        expect(m['rollout/failed']).toBe(0);
        expect(m['actor/grad_norm']).toBeGreaterThan(0);
      }
      // The last step publishes the last version; the job does not wait for a rollout of it.
      await waitForLine(gen, new RegExp(`"version":"v${STEPS}".*"msg":"policy version loaded by the inference server"`), 60_000);
      await nc.flush(); // every message the bus delivered before now has reached the watch

      // Every version, v0 (what the job starts from) to the last, loaded once each, in order.
      const first = c.serveBase ? 1 : 0;
      const loads = fake.calls.filter((call) => call.path === c.loadPath);
      expect(fake.loadedFiles.slice(first).map((f) => c.versionOf(f))).toEqual(VERSIONS);
      expect(fake.loadedFiles.length).toBe(first + VERSIONS.length);
      const served = VERSIONS.map((v, k) => servedFiles(fake.loadedFiles[first + k]!, v));
      // Versions 1.. are exactly the files of the job's checkpoint of that step.
      for (let k = 1; k <= STEPS; k++) {
        const saved = await filesIn(checkpointOf(k));
        expect(Object.keys(saved[c.weightsFile] as object).length, `v${k}`).toBeGreaterThan(0);
        expect(served[k], `v${k} as the server read it`).toEqual(saved);
        expect(served[k]![c.weightsFile], `v${k} differs from v${k - 1}`).not.toEqual(served[k - 1]![c.weightsFile]);
      }
      // v0 is the SFT model itself: a fresh adapter (B = 0) or the SFT weights.
      const v0 = served[0]![c.weightsFile] as Record<string, { data: number[] }>;
      if (c.weightsFormat === 'adapter') {
        const bs = Object.entries(v0).filter(([name]) => name.includes('.lora_B.'));
        expect(bs.length).toBeGreaterThan(0);
        for (const [name, t] of bs)
          expect(
            t.data.every((x) => x === 0),
            name,
          ).toBe(true);
      } else {
        expect(v0).toEqual((await filesIn(join(stack.work, 'sft', 'hf_model')))[c.weightsFile]);
      }

      // Step k's completions were all served by version k-1's load, under its model name, and nothing else was served.
      const perStep = (f: (v: string, k: number) => unknown) => VERSIONS.slice(0, STEPS).flatMap((v, k) => Array(PER_STEP).fill(f(v, k)));
      expect(fake.completions.map((x) => x.load)).toEqual(perStep((_v, k) => first + k));
      expect(fake.completions.map((x) => x.model)).toEqual(perStep((_v, k) => c.modelOf(loads[k]!)));
      // The trainer asked for version k-1 at step k and got trajectories recording it: the very completions the
      // server logged, with the log-probs of that version's weights as the job's checkpoint of step k-1 holds them.
      const rollouts = bus.rollouts();
      expect(rollouts.map((r) => r.asked)).toEqual(VERSIONS.slice(0, STEPS));
      const base = await loadModelDir(join(stack.work, 'sft', 'hf_model'));
      const weightsOf = (k: number) => (k === 0 ? base : c.weightsAt(checkpointOf(k), base));
      for (const [k, r] of rollouts.entries()) {
        expect(r.trajectories.map((t) => t.model_version)).toEqual(Array(PER_STEP).fill(VERSIONS[k]));
        const logged = fake.completions.slice(k * PER_STEP, (k + 1) * PER_STEP).map((x) => JSON.stringify([x.prompt, x.tokenIds]));
        expect(r.trajectories.map((t) => JSON.stringify([t.prompt_ids, t.response_ids])).sort(), `step ${k + 1}`).toEqual(logged.sort());
        expect(await gap(r.trajectories, await weightsOf(k)), `step ${k + 1}: sampled log-probs against v${k}'s weights`).toBeLessThan(SAME);
        // Not the weights the step's own update made (v(k+1)): the versions differ enough to tell.
        expect(await gap(r.trajectories, await weightsOf(k + 1)), `step ${k + 1}: against v${k + 1}'s weights`).toBeGreaterThan(5 * SAME);
      }

      // The trainer restarts and the job resumes from its last checkpoint with the same generation service and server:
      // it publishes the checkpoint's version, v3, once more, then steps on. Step 4 samples from v3's weights (the
      // server still serves the first v3, or the second under an adapter name of its own), and v4 follows.
      const loadsBefore = fake.loadedFiles.length;
      const completionsBefore = fake.completions.length;
      await submitJob(stack.trainer.baseUrl, 'rl-resumed', rlJob(STEPS + 1, 'auto'));
      const resumed = jobSteps(await followJob(stack.trainer.baseUrl, 'rl-resumed'));
      expect(resumed.map((m) => [m.step, m['rollout/failed']])).toEqual([[STEPS + 1, 0]]);
      await waitForLine(gen, new RegExp(`"version":"v${STEPS + 1}".*"msg":"policy version loaded by the inference server"`), 60_000);
      // v3 again, unless v4 was published before the sync got to it (a version superseded before it is read is skipped).
      const reloaded = fake.loadedFiles.slice(loadsBefore);
      const again = reloaded.slice(0, -1);
      expect(reloaded.map((f) => c.versionOf(f))).toEqual([...again.map(() => `v${STEPS}`), `v${STEPS + 1}`]);
      expect(again.length).toBeLessThanOrEqual(1);
      for (const f of again) expect(servedFiles(f, 'v3 again')).toEqual(await filesIn(checkpointOf(STEPS)));
      expect(servedFiles(reloaded.at(-1)!, 'v4')).toEqual(await filesIn(checkpointOf(STEPS + 1)));
      // Step 4 leased v3: its first load or the second (the same files), whichever served when it started.
      const step4 = fake.completions.slice(completionsBefore);
      expect(step4).toHaveLength(PER_STEP);
      for (const x of step4) expect(c.versionOf(fake.loadedFiles[x.load]!)).toBe(`v${STEPS}`);
      await nc.flush();
      bus.stop();
      const last = bus.rollouts().slice(STEPS);
      expect(last.map((r) => [r.asked, ...r.trajectories.map((t) => t.model_version)])).toEqual([Array(PER_STEP + 1).fill(`v${STEPS}`)]);
      expect(await gap(last[0]!.trajectories, await weightsOf(STEPS))).toBeLessThan(SAME);
    },
  );
});
