// `make bench` (rewards while rollouts run): the reward stage's share of a GRPO
// step with reward.stream and reward.cache on (the defaults) and off, for two
// jobs against real services: a code job (codecontests rows scored by
// reward-sandbox against their tests) and a judge job (rows scored by an LLM
// judge of the reward-model service, against a fake judge server that answers
// each request after a fixed latency). The policy is the demo's size (4 x 128,
// byte tokenizer); for the code job it is first fine-tuned (SFT, PyTorch engine)
// on fenced programs, so its samples are programs the sandbox runs (a reply
// without a fence scores 0 unrun, as in verl's sandbox_fusion). The generation
// service runs ROLLOUT_CONCURRENCY trajectories at once, so they finish in
// waves, as a server's batches do. timing_s/reward is what the step still waits
// for rewards after the old log-prob pass (which runs between generation and
// the reward stage); streamed, the scoring overlaps both.
//   node test/bench/reward-stream-bench.ts
// BENCH_STEPS=4 (the first is left out: it compiles), BENCH_PROMPTS=8 x BENCH_N=8 trajectories a step,
// BENCH_RESPONSE=48 tokens, BENCH_WAVE=16 (ROLLOUT_CONCURRENCY), BENCH_JUDGE_MS=400 (the judge's latency),
// BENCH_JUDGE_CONCURRENT=4, BENCH_OUT=.run/bench/reward-stream.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createParquetWriter, gsm8kFields } from '@rl/datasets';
import { followJob } from '../support/cluster-jobs.ts';
import { startFakeJudgeServer } from '../support/fake-judge-server.ts';
import { ROOT, startNatsServer, startService, type ServiceProcess } from '../support/processes.ts';

const STEPS = Number(process.env.BENCH_STEPS ?? 4);
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 8);
const N = Number(process.env.BENCH_N ?? 8);
const RESPONSE = Number(process.env.BENCH_RESPONSE ?? 48);
const WAVE = Number(process.env.BENCH_WAVE ?? 16);
const JUDGE_MS = Number(process.env.BENCH_JUDGE_MS ?? 400);
const JUDGE_CONCURRENT = Number(process.env.BENCH_JUDGE_CONCURRENT ?? 4);
const SFT_EPOCHS = Number(process.env.BENCH_SFT_EPOCHS ?? 40);
const OUT = process.env.BENCH_OUT ?? join(ROOT, '.run/bench/reward-stream.json');
if (!(STEPS >= 2 && PROMPTS >= 1 && N >= 1 && RESPONSE >= 1 && WAVE >= 1)) throw new Error('BENCH_STEPS >= 2 and positive sizes');

type Kind = 'code' | 'judge';
const DATA_SOURCE: Record<Kind, string> = { code: 'codecontests', judge: 'bench_judge' };

const program = (i: number) => `\`\`\`python\nprint(${i})\n\`\`\``;

async function writeSplit(path: string, kind: Kind): Promise<void> {
  const w = await createParquetWriter(path, gsm8kFields('plain'));
  for (let i = 0; i < PROMPTS * STEPS; i++) {
    const prompt = kind === 'code' ? `Write a program that prints ${i}.` : `What is ${i} + 3?`;
    const ground = kind === 'code' ? JSON.stringify({ inputs: ['', ''], outputs: [`${i}\n`, `${i}\n`] }) : String(i + 3);
    await w.write({
      data_source: DATA_SOURCE[kind],
      prompt: [{ role: 'user', content: prompt }],
      ability: kind === 'code' ? 'code' : 'math',
      reward_model: { ground_truth: ground, style: 'rule' },
      extra_info: { index: i, question: prompt, split: 'train', answer: kind === 'code' ? program(i) : String(i + 3) },
    });
  }
  await w.close();
}

/** SFT of the demo-size model on the code split's fenced programs; returns the Hugging Face directory it leaves. */
async function fineTuneOnPrograms(baseUrl: string): Promise<string> {
  const dir = join(work, 'sft');
  const config = {
    kind: 'sft',
    data: {
      train_files: join(work, 'code.parquet'),
      prompt_key: 'prompt',
      response_key: 'extra_info',
      response_dict_keys: ['answer'],
      train_batch_size: 16,
      micro_batch_size_per_gpu: 16,
      max_length: 128,
    },
    model: { tokenizer: 'byte', d_model: 128, n_layers: 4, n_heads: 4, d_ff: 512, seed: 1, strategy: 'fsdp' },
    optim: { lr: 3e-3, weight_decay: 0.01, clip_grad: 1.0 },
    trainer: { total_epochs: SFT_EPOCHS, test_freq: -1, save_freq: -1, default_local_dir: dir, resume_mode: 'disable' },
  };
  const r = await fetch(`${baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'sft', config }),
    signal: AbortSignal.timeout(30_000),
  });
  if (r.status !== 201) throw new Error(`submit sft: ${await r.text()}`);
  const end = (await followJob(baseUrl, 'sft')).at(-1);
  if (end?.state !== 'succeeded') throw new Error(`sft ${end?.state}`);
  return join(dir, 'hf_model');
}

const work = mkdtempSync(join(tmpdir(), 'rl-reward-stream-bench-'));
const judge = await startFakeJudgeServer({ latencyMs: JUDGE_MS, respond: () => ({ text: 'Reasonable. Score: 6' }) });
const judgesFile = join(work, 'judges.yaml');
writeFileSync(
  judgesFile,
  `judges:
  bench:
    base_url: ${judge.baseUrl}
    model: judge-model
    prompt: "Question: {{ question }}\\nAnswer: {{ response }}\\nScore 1-10."
    parser: {type: pattern, pattern: 'Score:\\s*(\\d+)'}
    score_range: [1, 10]
    limits: {max_concurrent: ${JUDGE_CONCURRENT}}
    timeout_ms: 60000
`,
);
const nats = await startNatsServer();
const services: ServiceProcess[] = [];
try {
  const env = { NATS_URL: nats.url };
  services.push(await startService('reward-sandbox', env));
  services.push(await startService('reward-model', { ...env, REWARD_JUDGES_FILE: judgesFile, REWARD_ROUTES: `${DATA_SOURCE.judge}=bench` }));
  services.push(
    await startService('generation', { ...env, POLICY_OBJECT_STORE: 'bench-stream', POLICY_OBJECT_NAME: 'actor', ROLLOUT_CONCURRENCY: String(WAVE) }),
  );
  const trainer = await startService('trainer', { ...env, TRAINER_BASE_DIR: ROOT, TRAINER_OUTPUT_ROOT: work });
  services.push(trainer);
  for (const kind of ['code', 'judge'] as const) await writeSplit(join(work, `${kind}.parquet`), kind);
  const sftDir = await fineTuneOnPrograms(trainer.baseUrl);

  const runs: Array<{ kind: Kind; streamed: boolean; step_s: number; reward_s: number; gen_s: number; share: number; hit_rate: number }> = [];
  for (const kind of ['code', 'judge'] as const) {
    for (const streamed of [false, true]) {
      const id = `${kind}-${streamed ? 'stream' : 'plain'}`;
      const config = {
        data: {
          train_files: join(work, `${kind}.parquet`),
          train_batch_size: PROMPTS,
          max_prompt_length: 64,
          max_response_length: RESPONSE,
          seed: 3,
          shuffle: false,
        },
        actor_rollout_ref: {
          model: kind === 'code' ? { path: sftDir } : { tokenizer: 'byte', d_model: 128, n_layers: 4, n_heads: 4, d_ff: 512, seed: 1 },
          rollout: { n: N, temperature: 1.0 },
          actor: { optim: { lr: 0.001, weight_decay: 0 }, ppo_mini_batch_size: PROMPTS },
        },
        algorithm: { adv_estimator: 'grpo' },
        trainer: {
          total_training_steps: STEPS,
          save_freq: -1,
          test_freq: -1,
          val_before_train: false,
          default_local_dir: join(work, id),
          resume_mode: 'disable',
        },
        reward: { stream: streamed, cache: streamed, routes: { [DATA_SOURCE.judge]: 'reward.model.score' } },
        rollout: { weights_bucket: 'bench-stream', weights_name: 'actor', timeout_ms: 600_000 },
      };
      const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, config }),
        signal: AbortSignal.timeout(30_000),
      });
      if (r.status !== 201) throw new Error(`submit ${id}: ${await r.text()}`);
      const events = await followJob(trainer.baseUrl, id);
      const end = events.at(-1);
      if (end?.state !== 'succeeded') throw new Error(`${id} ${end?.state}: ${JSON.stringify(events.filter((e) => e.type !== 'step').slice(-3))}`);
      const steps = readFileSync(join(work, id, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, number>)
        .filter((m) => m['timing_s/step'] !== undefined)
        .slice(1);
      const mean = (k: string) => steps.reduce((a, m) => a + (m[k] ?? 0), 0) / steps.length;
      const row = {
        kind,
        streamed,
        step_s: mean('timing_s/step'),
        reward_s: mean('timing_s/reward'),
        gen_s: mean('timing_s/gen'),
        share: mean('timing_s/reward') / mean('timing_s/step'),
        hit_rate: mean('reward/cache_hit_rate'),
      };
      runs.push(row);
      console.log(
        `${id.padEnd(14)} step ${row.step_s.toFixed(2)} s  gen ${row.gen_s.toFixed(2)} s  reward stage ${row.reward_s.toFixed(2)} s = ${(100 * row.share).toFixed(1)}% of the step  cache hits ${(100 * row.hit_rate).toFixed(1)}%`,
      );
    }
  }
  console.log(`\nreward stage's share with reward.stream + reward.cache / without (target <= 1/3):`);
  const ratios: Record<string, number> = {};
  for (const kind of ['code', 'judge'] as const) {
    const [plain, streamed] = [runs.find((x) => x.kind === kind && !x.streamed)!, runs.find((x) => x.kind === kind && x.streamed)!];
    ratios[kind] = streamed.share / plain.share;
    console.log(
      `  ${kind.padEnd(6)} ${(100 * plain.share).toFixed(1)}% -> ${(100 * streamed.share).toFixed(1)}%  (x${ratios[kind]!.toFixed(2)}); step ${plain.step_s.toFixed(2)} -> ${streamed.step_s.toFixed(2)} s`,
    );
  }
  const report = {
    sizes: {
      steps_measured: STEPS - 1,
      prompts: PROMPTS,
      n: N,
      response_tokens: RESPONSE,
      rollout_concurrency: WAVE,
      judge_latency_ms: JUDGE_MS,
      judge_concurrent: JUDGE_CONCURRENT,
    },
    machine: { cores: cpus().length, load: loadavg()[0] },
    runs,
    ratios,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwritten ${OUT} (load ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`);
} finally {
  await Promise.all(services.map((s) => s.stop()));
  await nats.stop();
  await judge.close();
  rmSync(work, { recursive: true, force: true });
}
