// `make run`, last step: what the two training stages reached. Reads the SFT
// and GRPO jobs' metrics.jsonl and validation dumps, prints the held-out
// accuracy of every GRPO validation (step 0 is the SFT model) in both series,
// strict and any format (demo-accuracy.ts), the wall times the trainer
// recorded, and writes one page showing both stages' plots.
//   node infra/scripts/demo-report.ts <sft dir> <grpo dir> [--jobs sft-id,grpo-id]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { dumpAccuracy, dumpFile } from './demo-accuracy.ts';

type Rec = Record<string, number | string | null> & { step: number };
const args = process.argv.slice(2);
const [sftDir, rlDir] = args.filter((a) => !a.startsWith('--')).map((p) => resolve(p));
if (sftDir === undefined || rlDir === undefined) {
  console.error('usage: demo-report.ts <sft dir> <grpo dir> [--jobs sft-id,grpo-id] [--url http://127.0.0.1:8105]');
  process.exit(2);
}
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};

function records(dir: string): Rec[] {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const byStep = new Map<number, Rec>();
  for (const line of lines) {
    try {
      const r = JSON.parse(line) as Rec;
      byStep.set(r.step, { ...byStep.get(r.step), ...r });
    } catch {
      // A torn last line (the job was killed mid-write) carries nothing useful.
    }
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

const sft = records(sftDir);
const rl = records(rlDir);
const accKey =
  Object.keys(rl.find((r) => Object.keys(r).some((k) => k.startsWith('val-core/'))) ?? {}).find((k) => /^val-core\/.+\/acc\/mean@/.test(k)) ??
  Object.keys(rl[0] ?? {}).find((k) => k.startsWith('val-core/'));
const vals = rl
  .filter((r) => accKey !== undefined && typeof r[accKey] === 'number')
  .map((r) => ({ step: r.step, strict: r[accKey!] as number, dump: dumpAccuracy(dumpFile(join(rlDir, 'val_generations'), r.step)) }));
const f3 = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(3));

console.log('\n=== What training reached ===');
const lastSft = sft.at(-1);
if (lastSft !== undefined) {
  const valLoss = [...sft].reverse().find((r) => typeof r['val/loss'] === 'number')?.['val/loss'] as number | undefined;
  console.log(`SFT: ${lastSft.step} steps; train/loss ${f3(lastSft['train/loss'] as number)}, val/loss ${f3(valLoss)}`);
}
if (vals.length > 0) {
  const n = vals.find((v) => v.dump !== undefined)?.dump?.n;
  console.log(`GRPO: held-out accuracy (greedy${n === undefined ? '' : `, ${n} problems`}); strict = ${accKey} (verl's "#### N", the reward),`);
  console.log('any format = the last number of the response is the answer, "####" lines = responses with a "#### N" line:');
  console.log(`  step   strict   any format   "####" lines`);
  for (const v of vals) {
    const d = v.dump;
    console.log(
      `  ${String(v.step).padStart(4)}   ${f3(v.strict)}   ${f3(d?.anyFormat).padStart(10)}   ${f3(d?.hashFormat).padStart(12)}${v.step === 0 ? '   <- the SFT model' : ''}`,
    );
  }
  const [first, last] = [vals[0]!, vals.at(-1)!];
  console.log(`Strict accuracy:     after SFT ${f3(first.strict)} -> after GRPO ${f3(last.strict)}`);
  if (first.dump !== undefined && last.dump !== undefined) {
    const gain = Math.round((last.dump.anyFormat - first.dump.anyFormat) * 1000) / 10;
    console.log(`Any-format accuracy: after SFT ${f3(first.dump.anyFormat)} -> after GRPO ${f3(last.dump.anyFormat)} (${gain >= 0 ? '+' : ''}${gain} points)`);
  }
} else {
  console.log('GRPO: no validation metrics found in', rlDir);
}

const jobs = flag('--jobs')?.split(',') ?? [];
if (jobs.length > 0) {
  const url = flag('--url') ?? process.env.TRAINER_URL ?? 'http://127.0.0.1:8105';
  let total = 0;
  for (const id of jobs) {
    const res = await fetch(`${url}/v1/jobs/${id}`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
    const job = res?.ok ? ((await res.json()) as { started_at: string | null; finished_at: string | null; state: string }) : null;
    if (job?.started_at && job.finished_at) {
      const s = (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;
      total += s;
      console.log(
        `${id}: ${job.state} in ${Math.floor(s / 60)}m${Math.round(s % 60)
          .toString()
          .padStart(2, '0')}s`,
      );
    }
  }
  if (total > 0)
    console.log(
      `training (SFT + GRPO + validations): ${Math.floor(total / 60)}m${Math.round(total % 60)
        .toString()
        .padStart(2, '0')}s`,
    );
}

// One page for both stages: each job's rendered SVGs, in stage order.
const out = resolve(sftDir, '..', 'plots');
const section = (title: string, dir: string) => {
  const plots = join(dir, 'plots');
  // The headline charts first (accuracy, reward, loss), then the rest as rendered.
  const order = ['val-accuracy', 'reward', 'sft-loss', 'lr', 'response-length', 'entropy', 'kl', 'pg-loss', 'grad-norm', 'timing'];
  const rank = (f: string) => (order.indexOf(f.replace(/\.svg$/, '')) + order.length + 1) % (order.length + 1);
  const svgs = existsSync(plots)
    ? readdirSync(plots)
        .filter((f) => f.endsWith('.svg'))
        .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    : [];
  const imgs = svgs.map((f) => `<figure><img src="${relative(out, join(plots, f))}" alt="${f}"><figcaption>${f}</figcaption></figure>`).join('');
  return `<h2>${title}</h2><main>${imgs || '<p>no plots</p>'}</main>`;
};
const { mkdirSync } = await import('node:fs');
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'index.html'),
  [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>make run: SFT then GRPO</title>',
    '<style>body{font-family:sans-serif;margin:1.5em}main{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}</style></head><body>',
    '<h1>SFT warm start, then GRPO against the remote rewards</h1>',
    section('Stage 1: SFT (train/loss, val/loss, lr)', sftDir),
    section('Stage 2: GRPO (held-out strict accuracy, reward, KL, entropy, timing)', rlDir),
    '</body></html>',
    '',
  ].join('\n'),
);
console.log(
  `plots: ${relative(process.cwd(), join(out, 'index.html'))} (SFT: ${relative(process.cwd(), join(sftDir, 'plots'))}, GRPO: ${relative(process.cwd(), join(rlDir, 'plots'))})`,
);
