import { createRng } from '@rl/service-kit';
import { jit, valueAndGrad } from '@jax-js/jax';
import { ensureTensorBackend, np, type LossInputs, type Tensor } from '@rl/policy';
import { describe, expect, it } from 'vitest';
import { computeValueLoss, type LossAggMode } from '../../core/algos/index.ts';
import { createValueLoss } from './value-loss.ts';

const ROWS = 3;
const COLS = 5;
const N = ROWS * COLS;

// The jax-js critic loss and its gradient wrt the predicted values, on host arrays.
async function runJax(mode: LossAggMode, vpreds: Float32Array, inputs: Record<string, Float32Array>) {
  await ensureTensorBackend();
  const loss = createValueLoss({ cliprangeValue: 0.2, lossAggMode: mode, lossScaleFactor: COLS });
  const tensor = (v: Float32Array) => np.array(Float32Array.from(v)).reshape([ROWS, COLS]);
  const f = jit((v: Tensor, ins: Record<string, Tensor>) => {
    const objective = (vp: Tensor): [Tensor, Record<string, Tensor>] => {
      const li: LossInputs = {
        get logprobs(): Tensor {
          throw new Error('not read');
        },
        get entropy(): Tensor {
          throw new Error('not read');
        },
        get values() {
          return vp.ref;
        },
        get mask() {
          return np.onesLike(vp.ref);
        },
        input: (name: string) => (ins[name] as Tensor).ref,
        inputNames: Object.keys(ins),
      };
      const r = loss(li);
      vp.dispose();
      return [r.loss, r.metrics ?? {}];
    };
    const [[value, metrics], grad] = valueAndGrad(objective, { hasAux: true })(v);
    for (const t of Object.values(ins)) t.dispose();
    return { value, metrics, grad };
  });
  const out = f(tensor(vpreds), Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, tensor(v)])));
  const metrics: Record<string, number> = {};
  for (const [k, t] of Object.entries(out.metrics)) metrics[k] = (await t.data())[0] as number;
  const res = { loss: (await out.value.data())[0] as number, metrics, grad: Float32Array.from(await out.grad.data()) };
  f.dispose();
  return res;
}

describe('critic value loss (jax-js) against core/algos computeValueLoss', () => {
  for (const mode of ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const) {
    it(`agrees on loss, clip fraction and gradient (${mode})`, async () => {
      const rng = createRng(mode.length * 7);
      const u = (lo: number, hi: number) => Float32Array.from({ length: N }, () => lo + (hi - lo) * rng.next());
      const old = u(-1, 1);
      // Predictions near and far from the old values, so both sides of the clip window occur.
      const vpreds = old.map((o) => o + (rng.next() - 0.5));
      const returns = u(-1, 1);
      const mask = Float32Array.from({ length: N }, (_, i) => (i >= 2 * COLS ? 0 : rng.next() < 0.8 ? 1 : 0));
      mask[0] = 1;
      const jax = await runJax(mode, vpreds, { old_values: old, returns, response_mask: mask });
      const ref = computeValueLoss({
        shape: { batchSize: ROWS, seqLen: COLS },
        vpreds,
        returns,
        values: old,
        responseMask: mask,
        cliprangeValue: 0.2,
        lossAggMode: mode,
        global: { lossScaleFactor: COLS } as never,
      });
      expect(jax.loss).toBeCloseTo(ref.vfLoss, 5);
      expect(jax.metrics['critic/vf_clipfrac']).toBeCloseTo(ref.vfClipfrac, 5);
      for (let i = 0; i < N; i++) expect(jax.grad[i]).toBeCloseTo(ref.dVpreds[i]!, 5);
    });
  }
});
