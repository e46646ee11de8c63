// The PyTorch engine behind the policy worker, with real parts (nats-server,
// reward-rules, generation, the trainer, its policy worker and the worker's
// rl_torch_engine child): verl's `strategy: fsdp` keys choose it. An SFT job
// and a GRPO job from its model, rewarded by the remote reward-rules service,
// whose exported directory the embedded engine scores as the torch engine
// trained it; and a job whose engine is killed mid-job, which starts a new
// worker from its last checkpoint and finishes. Skipped without torch.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTokenizer, loadModelDir, policyFromWeights, TorchTrainer, type PolicyWeights, type TokenPair } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from './support/processes.ts';
import { HAS_TORCH, followJob, jobSteps, startTrainerStack, submitJob, tinySftJob, type TrainerStack } from './support/trainer-jobs.ts';

const BUCKET = `rl-torch-${process.pid}`;
let stack: TrainerStack;
let trainer: ServiceProcess;
let work: string;

/** Process ids of the rl_torch_engine children of the policy workers whose spec is under `dir`. */
function enginesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('rl_torch_engine')) continue;
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      if (
        readFileSync(`/proc/${ppid}/environ`, 'utf8')
          .split('\0')
          .some((v) => v.startsWith('POLICY_WORKER_SPEC=') && v.includes(dir))
      )
        pids.push(Number(entry));
    } catch {
      // a process that ended while we looked
    }
  }
  return pids;
}

beforeAll(async () => {
  if (!HAS_TORCH) return;
  stack = await startTrainerStack({ prefix: 'rl-torch-', bucket: BUCKET, sftRows: 32, testRows: 4, vocabSize: 300 });
  ({ work, trainer } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const RL = (dir: string, extra: Record<string, unknown> = {}) => ({
  data: { train_files: 'rl.parquet', val_files: 'test.parquet', train_batch_size: 2, max_prompt_length: 128, max_response_length: 8 },
  actor_rollout_ref: { model: { path: 'sft' }, rollout: { n: 2 }, actor: { strategy: 'fsdp', optim: { lr: 1e-3 } } },
  algorithm: { adv_estimator: 'grpo' },
  reward: { params: { 'openai/gsm8k': { method: 'strict' } } },
  rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
  ...extra,
  trainer: { default_local_dir: dir, resume_mode: 'disable', ...(extra.trainer as object) },
});

describe.skipIf(!HAS_TORCH)('the PyTorch engine behind the policy worker (strategy: fsdp)', () => {
  it('SFT then GRPO on the torch engine, rewarded remotely; the exported model scores on the embedded engine as the torch engine trained it', async () => {
    await submitJob(
      trainer.baseUrl,
      'sft',
      tinySftJob({ steps: 3, data: { micro_batch_size_per_gpu: 4 }, model: { strategy: 'fsdp2', enable_gradient_checkpointing: true } }),
    );
    const sm = jobSteps(await followJob(trainer.baseUrl, 'sft'));
    expect(sm.map((m) => m.step)).toEqual([1, 2, 3]);
    // Learning: the loss falls over three steps on the same small data.
    expect(sm[2]!['train/loss']).toBeLessThan(sm[0]!['train/loss']!);

    await submitJob(trainer.baseUrl, 'grpo', RL('grpo', { trainer: { total_training_steps: 2, test_freq: 2, save_freq: 2 } }));
    const rm = jobSteps(await followJob(trainer.baseUrl, 'grpo'));
    expect(rm.map((m) => m.step)).toEqual([1, 2]);
    for (const m of rm) {
      expect(m['reward/openai/gsm8k/count']).toBe(4);
      expect(m['reward/error_count']).toBe(0);
      expect(Number.isFinite(m['actor/grad_norm'])).toBe(true);
    }
    expect(existsSync(join(work, 'grpo', 'global_step_2', 'actor', 'optimizer.bin'))).toBe(true);
    // The exported directory: the embedded engine and the torch engine score it alike.
    const exported = await loadModelDir(join(work, 'grpo', 'hf_model'));
    const tok = createTokenizer(exported.tokenizer);
    const pairs: TokenPair[] = [
      {
        prompt: tok.applyChatTemplate([{ role: 'user', content: 'Tom has 3 apples and buys 4 more.' }], { addGenerationPrompt: true }),
        response: tok.encode('3 + 4 = 7 #### 7'),
      },
    ];
    const jax = await scoreJax(exported, pairs);
    const torch = await TorchTrainer.open(join(work, 'grpo', 'hf_model'), { lr: 1 });
    try {
      const [t] = await torch.score(pairs);
      t!.logprobs.forEach((v, i) => expect(v, `token ${i}`).toBeCloseTo(jax[0]![i]!, 4));
    } finally {
      torch.dispose();
    }
    // RL changed the policy.
    expect(await scoreJax(await loadModelDir(join(work, 'sft', 'hf_model')), pairs)).not.toEqual(jax);
  }, 600_000);

  it('a job whose engine is killed mid-job starts a new worker from its last checkpoint and finishes', async () => {
    await submitJob(trainer.baseUrl, 'crash', RL('crash', { trainer: { total_training_steps: 3, save_freq: 1 } }));
    let killed: number[] = [];
    const events = await followJob(trainer.baseUrl, 'crash', (e) => {
      // At step 2's event, kill the engine: step 2's checkpoint or step 3 fails on it.
      if (e.type === 'step' && e.metrics?.step === 2 && killed.length === 0) {
        killed = enginesUnder(join(work, 'crash'));
        for (const pid of killed) process.kill(pid, 'SIGKILL');
      }
    });
    expect(killed.length).toBeGreaterThan(0);
    const logs = events.filter((e) => e.type === 'log').map((e) => e.message ?? '');
    // Step 2's checkpoint is written after its step event: the kill lands before or after it.
    const restart = logs.map((l) => /policy worker exited .*starting a new policy worker from the checkpoint of step (\d)/.exec(l)).find((m) => m !== null);
    expect(restart, logs.join('\n')).toBeDefined();
    const from = Number(restart![1]);
    expect([1, 2]).toContain(from);
    // The steps after that checkpoint ran again, and the job went on to the end.
    const ran = jobSteps(events).map((m) => m.step);
    expect(ran).toEqual([1, 2, ...(from === 1 ? [2] : []), 3]);
    expect(readFileSync(join(work, 'crash', 'latest_checkpointed_iteration.txt'), 'utf8')).toBe('3');
  }, 600_000);
});

async function scoreJax(w: PolicyWeights, pairs: TokenPair[]): Promise<number[][]> {
  const policy = await policyFromWeights(w);
  try {
    return (await policy.score(pairs)).map((s) => Array.from(s.logprobs));
  } finally {
    policy.dispose();
  }
}
