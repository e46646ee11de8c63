// The CLI's live one-line summary of a step.
import { sparkline } from '../plots/index.ts';

const pick = (m: Record<string, number>, re: RegExp): number | undefined => {
  const k = Object.keys(m).find((key) => re.test(key));
  return k === undefined ? undefined : m[k];
};
const f = (x: number | undefined, digits = 3) => (x === undefined ? '-' : x.toFixed(digits));

/** `step 40/600 | loss 0.512 ▇▅▃▂ | val_loss 0.49 | lr 2.9e-3 | grad 0.81 | 0.5 s` (SFT jobs) */
function sftLine(step: number, total: number, m: Record<string, number>, losses: number[], lastVal: number | undefined): string {
  return [
    `step ${step}/${total}`,
    `loss ${f(m['train/loss'])} ${sparkline(losses.slice(-24))}`,
    `val_loss ${f(lastVal)}`,
    `lr ${m['train/lr'] === undefined ? '-' : m['train/lr'].toExponential(1)}`,
    `grad ${f(m['train/grad_norm'], 2)}`,
    `${f(m['timing_s/step'], 1)} s`,
  ].join(' | ');
}

/** The number a step's sparkline follows: the training score of RL steps, the loss of SFT steps. */
export function curveValue(m: Record<string, number>): number {
  return m['train/loss'] ?? m['critic/score/mean'] ?? 0;
}

/** `step 12/150 | score 0.341 ▁▂▃▅ | acc 0.41 | val 0.38 | pg_loss ... | 4.1 s` */
export function stepLine(step: number, total: number, m: Record<string, number>, scores: number[], lastVal: number | undefined): string {
  if (m['train/loss'] !== undefined) return sftLine(step, total, m, scores, lastVal);
  return [
    `step ${step}/${total}`,
    `score ${f(m['critic/score/mean'])} ${sparkline(scores.slice(-24))}`,
    `acc ${f(pick(m, /^reward\/acc\/mean$/), 2)}`,
    `val ${f(lastVal, 2)}`,
    `pg_loss ${f(m['actor/pg_loss'])}`,
    `entropy ${f(m['actor/entropy'], 2)}`,
    `grad ${f(m['actor/grad_norm'], 2)}`,
    `len ${f(m['response_length/mean'], 1)}`,
    `${f(m['timing_s/step'], 1)} s`,
  ].join(' | ');
}

/** The main validation number of a step's metrics (first `val-core/*\/acc/mean@*`, else any val-core mean, else the SFT val/loss). */
export function valScore(m: Record<string, number>): number | undefined {
  return pick(m, /^val-core\/.+\/acc\/mean@/) ?? pick(m, /^val-core\/.+\/mean@/) ?? m['val/loss'];
}
