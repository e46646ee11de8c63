// The two-stage chain `make run` trains, shortened, with real parts
// (nats-server, reward-rules, generation, trainer and its policy worker): an
// SFT job on synthetic GSM8K-style problems with a BPE tokenizer learned from
// them, then a GRPO job that starts from the SFT checkpoint and is rewarded by
// the remote reward-rules service; and an RL job with an otherwise default
// config, i.e. verl's default estimator, GAE with a critic. Each job's final
// models are Hugging Face directories that load back and score as the job's
// own policy and critic do.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createTokenizer, fetchWeights, loadModelDir, loadWeights, openWeightsStore, policyFromWeights, type PolicyWeights, type TokenPair } from '@rl/policy';
import { writeTinyModelDir } from '@rl/policy/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyWorkerCore } from '../services/trainer/src/policy/worker-core.ts';
import { WorkerSpec } from '../services/trainer/src/policy/worker-spec.ts';
import { connectTestClient } from './support/nats-client.ts';
import { ROOT, type NatsServer, type ServiceProcess } from './support/processes.ts';
import { jobSteps, runJob, startTrainerStack, tinySftJob, type TrainerStack } from './support/trainer-jobs.ts';

const BUCKET = `rl-sftrl-${process.pid}`;
let nats: NatsServer;
let stack: TrainerStack;
let trainer: ServiceProcess;
let nc: NatsConnection;
let work: string;

/** Pairs of real text in the model's own chat template, to score with. */
function pairsFor(w: PolicyWeights): TokenPair[] {
  const tok = createTokenizer(w.tokenizer);
  const ask = (q: string) => tok.applyChatTemplate([{ role: 'user', content: q }], { addGenerationPrompt: true });
  return [
    { prompt: ask('Tom has 3 apples and buys 4 more. How many apples does he have?'), response: tok.encode('He has 3 + 4 = 7 apples. #### 7') },
    { prompt: ask('A box holds 9 pens; 2 are taken out. How many are left?'), response: tok.encode('9 - 2 = 7. The answer is 7.') },
  ];
}

/** Log-probs and entropies of `pairs` under `w` (the embedded engine). */
async function scoreWith(w: PolicyWeights, pairs: TokenPair[]): Promise<Array<{ logprobs: number[]; entropies: number[] }>> {
  const policy = await policyFromWeights(w);
  try {
    return (await policy.score(pairs)).map((s) => ({ logprobs: Array.from(s.logprobs), entropies: Array.from(s.entropy) }));
  } finally {
    policy.dispose();
  }
}

/** `npx rl-policy logprobs --model <dir>` on `pairs`, as a child process. */
function rlPolicyLogprobs(dir: string, pairs: TokenPair[]): Promise<Array<{ logprobs: number[]; entropies: number[] }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'shared/policy/bin/rl-policy.ts'), 'logprobs', '--model', dir], { timeout: 120_000 });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(
            out
              .trimEnd()
              .split('\n')
              .map((l) => JSON.parse(l)),
          )
        : reject(new Error(`rl-policy exited ${code}: ${err}`)),
    );
    child.stdin.end(pairs.map((p) => `${JSON.stringify({ prompt_ids: p.prompt, response_ids: p.response })}\n`).join(''));
  });
}

beforeAll(async () => {
  stack = await startTrainerStack({ prefix: 'rl-sftrl-', bucket: BUCKET, sftRows: 64, testRows: 8, vocabSize: 320 });
  ({ work, nats, trainer } = stack);
  nc = await connectTestClient(nats.url);
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await stack?.stop();
});

describe('SFT warm start, then RL from its checkpoint', () => {
  it('SFT trains and checkpoints; GRPO loads that checkpoint (its reference policy) and is rewarded remotely; both write metrics and plots', async () => {
    const sft = await runJob(
      trainer.baseUrl,
      'sft',
      tinySftJob({
        steps: 4,
        data: { val_files: 'test.parquet', micro_batch_size_per_gpu: 4 },
        optim: { lr_warmup_steps_ratio: 0.2 },
        trainer: { test_freq: 2 },
      }),
    );
    const sm = jobSteps(sft);
    expect(sm.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(sm[0]!['train/lr']).toBe(0); // warmup: the first step runs at lr 0, as torch's LambdaLR does
    for (const m of sm) expect(Number.isFinite(m['train/loss'])).toBe(true);
    expect(sm.filter((m) => m['val/loss'] !== undefined).map((m) => m.step)).toEqual([2, 4]);
    expect(readFileSync(join(work, 'sft', 'latest_checkpointed_iteration.txt'), 'utf8')).toBe('4');
    expect(existsSync(join(work, 'sft', 'plots', 'sft-loss.svg'))).toBe(true);

    const rl = await runJob(trainer.baseUrl, 'grpo', {
      data: { train_files: 'rl.parquet', val_files: 'test.parquet', train_batch_size: 4, max_prompt_length: 128, max_response_length: 16 },
      actor_rollout_ref: { model: { path: 'sft' }, rollout: { n: 4 }, actor: { optim: { lr: 1e-3 }, ppo_mini_batch_size: 2 } },
      algorithm: { adv_estimator: 'grpo' },
      reward: { params: { 'openai/gsm8k': { method: 'strict' } } },
      trainer: { total_training_steps: 2, test_freq: 2, save_freq: 2, default_local_dir: 'grpo', resume_mode: 'disable' },
      rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
    });
    const rm = jobSteps(rl);
    expect(rm.map((m) => m.step)).toEqual([1, 2]);
    for (const m of rm) {
      expect(m['reward/openai/gsm8k/count']).toBe(16); // 4 prompts x n=4, scored by reward-rules
      expect(m['reward/error_count']).toBe(0);
    }
    expect(rm.at(-1)!['val-core/openai/gsm8k/acc/mean@1']).toBeGreaterThanOrEqual(0);
    // Every checkpoint and the final model are Hugging Face directories; the SFT job's final model is its last checkpoint's.
    const sftModel = await loadModelDir(join(work, 'sft', 'hf_model'));
    expect(readdirSync(join(work, 'sft', 'hf_model')).sort()).toEqual(
      expect.arrayContaining(['config.json', 'generation_config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']),
    );
    expect(JSON.parse(readFileSync(join(work, 'sft', 'hf_model', 'config.json'), 'utf8'))).toMatchObject({ architectures: ['Qwen3ForCausalLM'] });
    expect(JSON.parse(readFileSync(join(work, 'sft', 'hf_model', 'tokenizer_config.json'), 'utf8')).chat_template).toContain('<|im_start|>');
    expect(sftModel.tokenizer).toMatchObject({ kind: 'hf', eosToken: '<|im_end|>' });
    const sftLast = await loadModelDir(join(work, 'sft', 'global_step_4', 'actor', 'huggingface'));
    for (const [name, t] of Object.entries(sftLast.params)) expect(sftModel.params[name]!.data, name).toEqual(t.data);
    // The RL job's reference policy is the SFT job's final model, tensor for tensor.
    const ref = await loadWeights(join(work, 'grpo', 'global_step_2', 'actor', 'ref.safetensors'));
    expect(Object.keys(ref.params).sort()).toEqual(Object.keys(sftModel.params).sort());
    for (const [name, t] of Object.entries(sftModel.params)) expect(ref.params[name]!.data, name).toEqual(t.data);
    // The RL job's exported directory, loaded back, scores as the job's final policy (the weights it published to
    // generation after its last update), in process and with `rl-policy logprobs`.
    const exported = await loadModelDir(join(work, 'grpo', 'hf_model'));
    const published = await fetchWeights(await openWeightsStore(nc, BUCKET), 'actor');
    expect(published?.version).toBe(exported.version);
    const pairs = pairsFor(exported);
    const fromDir = await scoreWith(exported, pairs);
    expect(fromDir).toEqual(await scoreWith(published!, pairs));
    const cli = await rlPolicyLogprobs(join(work, 'grpo', 'hf_model'), pairs);
    cli.forEach((c, i) => {
      expect(c.logprobs).toHaveLength(pairs[i]!.response.length);
      c.logprobs.forEach((v, t) => expect(v, `pair ${i} token ${t}`).toBeCloseTo(fromDir[i]!.logprobs[t]!, 5));
      c.entropies.forEach((v, t) => expect(v, `pair ${i} token ${t}`).toBeCloseTo(fromDir[i]!.entropies[t]!, 5));
    });
    // RL changed the policy: the SFT model scores the same pairs differently.
    expect((await scoreWith(sftModel, pairs))[0]!.logprobs).not.toEqual(fromDir[0]!.logprobs);
    expect(existsSync(join(work, 'grpo', 'plots', 'val-accuracy.svg'))).toBe(true);
  }, 300_000);

  it('an RL job with an otherwise default config runs PPO with a critic (verl default adv_estimator gae)', async () => {
    const events = await runJob(trainer.baseUrl, 'gae', {
      data: { train_files: 'rl.parquet', train_batch_size: 4, max_prompt_length: 128, max_response_length: 16 },
      actor_rollout_ref: { model: { tokenizer: 'tokenizer.json', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32 } },
      trainer: { total_training_steps: 2, save_freq: 2, default_local_dir: 'gae', resume_mode: 'disable' },
      rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
    });
    for (const m of jobSteps(events)) {
      expect(m['critic/vf_loss'], JSON.stringify(m)).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(m['critic/values/mean']), JSON.stringify(m)).toBe(true);
      expect(Number.isFinite(m['critic/vf_explained_var']), JSON.stringify(m)).toBe(true);
      expect(m['timing_s/update_critic']).toBeGreaterThan(0);
      expect(m['reward/error_count']).toBe(0);
    }
    // The critic leaves as a one-label token-classification model without an LM head (verl's critic), and gives the
    // values of the critic the job would resume with.
    const criticDir = join(work, 'gae', 'hf_critic');
    expect(JSON.parse(readFileSync(join(criticDir, 'config.json'), 'utf8'))).toMatchObject({ architectures: ['Qwen3ForTokenClassification'], num_labels: 1 });
    const critic = await loadModelDir(criticDir);
    expect(critic.config.valueHead).toBe(true);
    expect(Object.keys(critic.params)).toEqual(expect.arrayContaining(['score.weight', 'score.bias']));
    expect(Object.keys(critic.params)).not.toContain('lm_head.weight');
    const pairs = pairsFor(critic);
    const policy = await policyFromWeights(critic);
    const values = (await policy.values(pairs)).map((v) => Array.from(v));
    policy.dispose();
    const spec = WorkerSpec.parse(JSON.parse(readFileSync(join(work, 'gae', 'worker-spec.json'), 'utf8')));
    const resumed = await PolicyWorkerCore.fromCheckpoint(spec, join(work, 'gae', 'global_step_2'));
    try {
      expect(values).toEqual((await resumed.critic.values({ pairs: pairs.map((p) => ({ prompt: [...p.prompt], response: [...p.response] })) })).values);
    } finally {
      resumed.dispose();
    }
    for (const v of values.flat()) expect(Number.isFinite(v)).toBe(true);
  }, 300_000);

  it("an RL job starts from any Hugging Face directory (an untied Llama here), its critic too, with the directory's tokenizer", async () => {
    const hub = join(work, 'hub-llama');
    await writeTinyModelDir(hub, { architecture: 'LlamaForCausalLM', tieEmbeddings: false, config: { maxSeqLen: 512 }, seed: 5 });
    const events = await runJob(trainer.baseUrl, 'llama', {
      data: { train_files: 'rl.parquet', train_batch_size: 2, max_prompt_length: 256, max_response_length: 8 },
      actor_rollout_ref: { model: { path: 'hub-llama' }, rollout: { n: 2 } },
      critic: { model: { path: 'hub-llama' } },
      trainer: { total_training_steps: 1, default_local_dir: 'llama', resume_mode: 'disable' },
      rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
    });
    expect(jobSteps(events).map((m) => m['reward/error_count'])).toEqual([0]);
    const actor = await loadModelDir(join(work, 'llama', 'hf_model'));
    expect(actor.config).toMatchObject({ architecture: 'LlamaForCausalLM', tieEmbeddings: false, nKvHeads: 2 });
    expect(actor.tokenizer.kind).toBe('byte');
    expect(Object.keys(actor.params)).toContain('lm_head.weight');
    // The critic is built from the causal LM: a new value head, and no lm_head.
    expect(JSON.parse(readFileSync(join(work, 'llama', 'hf_critic', 'config.json'), 'utf8'))).toMatchObject({
      architectures: ['LlamaForTokenClassification'],
      num_labels: 1,
    });
    expect(Object.keys((await loadModelDir(join(work, 'llama', 'hf_critic'))).params)).not.toContain('lm_head.weight');
  }, 300_000);
});
