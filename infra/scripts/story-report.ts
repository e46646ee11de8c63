// `make demo-story`, last step: what moved. Reads the SFT and GRPO jobs'
// metrics.jsonl and prints the SFT losses, then each story reward component
// over the first and the last steps of GRPO (training replies, scored with
// the policy's signals) and on the held-out validation turns (greedy, scored
// without signals, as verl validates), and where the plots are.
//   node infra/scripts/story-report.ts <sft dir> <grpo dir>
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { COMPONENTS } from '../../services/reward-story/src/core/weights.ts';

type Rec = Record<string, number | string | null> & { step: number };
const [sftDir, rlDir] = process.argv.slice(2).map((p) => resolve(p));
if (sftDir === undefined || rlDir === undefined) {
  console.error('usage: story-report.ts <sft dir> <grpo dir>');
  process.exit(2);
}

function records(dir: string): Rec[] {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  const byStep = new Map<number, Rec>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = JSON.parse(line) as Rec;
      byStep.set(r.step, { ...byStep.get(r.step), ...r });
    } catch {
      // A torn last line (the job was killed mid-write) carries nothing useful.
    }
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

const num = (r: Rec | undefined, key: string) => (typeof r?.[key] === 'number' ? (r[key] as number) : undefined);
const fmt = (v: number | undefined, digits = 3) => (v === undefined ? '  -  ' : v.toFixed(digits));
/** Mean of `key` over the records that have it. */
function meanOf(rs: readonly Rec[], key: string): number | undefined {
  const vs = rs.map((r) => num(r, key)).filter((v): v is number => v !== undefined);
  return vs.length === 0 ? undefined : vs.reduce((a, b) => a + b, 0) / vs.length;
}

const sft = records(sftDir);
const rl = records(rlDir);
const lines: string[] = [];

const losses = sft.filter((r) => num(r, 'train/loss') !== undefined);
const vals = sft.filter((r) => num(r, 'val/loss') !== undefined);
lines.push(
  `SFT: ${losses.length} steps, train/loss ${fmt(num(losses[0], 'train/loss'))} -> ${fmt(num(losses.at(-1), 'train/loss'))}, val/loss ${fmt(num(vals[0], 'val/loss'))} -> ${fmt(num(vals.at(-1), 'val/loss'))} (nats/token)`,
);

const train = rl.filter((r) => num(r, 'critic/score/mean') !== undefined);
const k = Math.max(1, Math.min(3, Math.floor(train.length / 2)));
const first = train.slice(0, k);
const last = train.slice(-k);
const validations = rl.filter((r) => num(r, 'val-core/story/reward/mean@1') !== undefined);
const v0 = validations[0];
const vN = validations.at(-1);
lines.push(
  `GRPO: ${train.length} steps against reward-story; training replies (mean of the first and last ${k} steps) and held-out turns (greedy, step ${v0?.step ?? '-'} and ${vN?.step ?? '-'})`,
);
lines.push('component           train first  train last   change   |  val first  val last');
const row = (name: string, trainKey: string, valKey: string) => {
  const a = meanOf(first, trainKey);
  const b = meanOf(last, trainKey);
  const change = a === undefined || b === undefined ? undefined : b - a;
  lines.push(
    `${name.padEnd(18)}  ${fmt(a).padStart(11)}  ${fmt(b).padStart(10)}  ${(change === undefined ? '-' : `${change >= 0 ? '+' : ''}${change.toFixed(3)}`).padStart(7)}   |  ${fmt(num(v0, valKey)).padStart(9)}  ${fmt(num(vN, valKey)).padStart(8)}`,
  );
};
row('score (total)', 'critic/score/mean', 'val-core/story/reward/mean@1');
for (const c of COMPONENTS) row(c, `reward/story/${c}/mean`, `val-aux/story/${c}/mean@1`);
row('response length', 'response_length/mean', '');
lines.push('(info_gain and entropy need the signals of the training pass: validation is scored without them; "-" = did not apply)');
const secs = (rs: readonly Rec[]) => rs.reduce((s, r) => s + (num(r, 'timing_s/step') ?? 0), 0);
lines.push(`time: SFT ${fmt(secs(sft), 0)} s, GRPO ${fmt(secs(rl), 0)} s (step timers; validation and start-up not included)`);
for (const dir of [sftDir, rlDir]) lines.push(`plots: ${relative(process.cwd(), join(dir, 'plots', 'index.html'))}`);
process.stdout.write(`${lines.join('\n')}\n`);
