// `make bench` (trainer part): time per training step split by stage, for the
// demo job (4-layer 128-wide model, 32 prompts x 8 responses, GRPO) against
// real services, and the share of each step spent outside model compute: the
// controller's and the bus's overhead (step time minus what the generation
// service and the policy worker report computing, minus remote scoring).
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readSse } from '../../services/trainer/src/cli/sse.ts';
import { ROOT, startNatsServer, startService } from '../support/processes.ts';

const STEPS = Number(process.env.BENCH_TRAIN_STEPS ?? 6);
const work = mkdtempSync(join(tmpdir(), 'rl-trainer-bench-'));
const nats = await startNatsServer();
const rules = await startService('reward-rules', { NATS_URL: nats.url, LOG_LEVEL: 'info' });
const generation = await startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: 'bench', POLICY_OBJECT_NAME: 'actor' });
const trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: ROOT, TRAINER_OUTPUT_ROOT: work });
try {
  const config = parseYaml(await readFile(join(ROOT, 'infra/demo/arithmetic-grpo.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;
  const overrides = [
    `trainer.total_training_steps=${STEPS}`,
    'trainer.val_before_train=false',
    'trainer.test_freq=-1',
    'trainer.save_freq=-1',
    `trainer.default_local_dir=${join(work, 'run')}`,
    'rollout.weights_bucket=bench',
  ];
  const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ config, overrides, id: 'bench' }),
  });
  if (r.status !== 201) throw new Error(`submit failed: ${await r.text()}`);
  const steps: Array<Record<string, number>> = [];
  const res = await fetch(`${trainer.baseUrl}/v1/jobs/bench/metrics?stream=true`);
  for await (const m of readSse(res.body!)) {
    const e = JSON.parse(m.data) as { type: string; state?: string; error?: string; metrics?: Record<string, number> };
    if (e.type === 'step' && e.metrics) steps.push(e.metrics);
    if (e.type === 'state' && e.state !== 'running' && e.state !== 'queued') {
      if (e.state !== 'succeeded') throw new Error(`job ${e.state}: ${e.error}`);
      break;
    }
  }
  // The first step compiles the model's shapes; report the steady state.
  const steady = steps.slice(1);
  const mean = (k: string) => steady.reduce((a, m) => a + (m[k] ?? 0), 0) / Math.max(1, steady.length);
  console.log(`training step of the demo job (${steady.length} steps after the first; 32 prompts x 8 responses, 4x128 model, GRPO)\n`);
  for (const stage of ['gen', 'reward', 'old_log_prob', 'ref', 'adv', 'update_actor', 'publish', 'step']) {
    const v = mean(`timing_s/${stage}`);
    if (v > 0) console.log(`${`timing_s/${stage}`.padEnd(24)} ${v.toFixed(3).padStart(8)} s`);
  }
  console.log(
    `${'model compute'.padEnd(24)} ${mean('perf/model_compute_s').toFixed(3).padStart(8)} s  (generation service + policy worker, as they measure it)`,
  );
  console.log(
    `${'controller + bus'.padEnd(24)} ${mean('perf/overhead_s').toFixed(3).padStart(8)} s  = ${(100 * mean('perf/overhead_share')).toFixed(1)}% of the step`,
  );
} finally {
  await Promise.all([trainer.stop(), generation.stop(), rules.stop()]);
  await nats.stop();
  rmSync(work, { recursive: true, force: true });
}
