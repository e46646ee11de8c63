// A PolicyLoss evaluated on per-token values an engine computed (log-probs,
// entropies, values) instead of on the jax-js model: the loss and its gradient
// with respect to those leaves. An engine with its own autograd (the torch
// child) feeds the gradient back into its backward pass, so every engine trains
// with the one jax-js implementation of each loss. The leaves are laid out as
// PolicyTrainer lays them out (packBucketed), so a loss sees the same [B, R]
// shape, mask and inputs here as inside the fused jax-js step.
import type { OwnedFunction } from '@jax-js/jax';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { ensureTensorBackend, jit, np, tree, valueAndGrad, type Tensor } from '../model/backend.ts';
import { packBucketed, type TokenPair } from '../generation/score.ts';
import type { PairBlock } from './batch-layout.ts';
import type { LossInputs, PolicyLoss } from './loss-inputs.ts';
import { trainBatchInputs, type TrainBatch } from './train-batch.ts';

/** Per-token values of each pair's response (one array per pair, as long as its response). */
export interface LeafValues {
  logprobs: Float32Array[];
  entropy?: Float32Array[];
  values?: Float32Array[];
}

/** Loss and metrics as PolicyTrainer.accumulate reports them, and d(scale x loss)/d(leaf) per pair. */
export interface LeafLoss {
  loss: number;
  metrics: Record<string, number>;
  grads: LeafValues;
}

type LeafName = keyof LeafValues;
const LEAF_NAMES: readonly LeafName[] = ['logprobs', 'entropy', 'values'];
type LeafTensors = Partial<Record<LeafName, Tensor>>;

type Compiled = OwnedFunction<
  (leaves: LeafTensors, mask: Tensor, inputs: Record<string, Tensor>, scale: Tensor) => { loss: Tensor; metrics: Record<string, Tensor>; grads: LeafTensors }
>;

// One compiled step per loss (jax-js compiles again per shape and leaf set by itself).
const compiled = new WeakMap<PolicyLoss, Compiled>();

/** The loss of `batch` on the given leaves and its gradient with respect to each leaf supplied (zeros where the loss does not read one). */
export async function lossOnLeaves(loss: PolicyLoss, batch: TrainBatch, leaves: LeafValues, scale = 1): Promise<LeafLoss> {
  if (batch.pairs.length === 0) throw new AppError(ErrorCode.BadRequest, 'batch.pairs is empty');
  const names = LEAF_NAMES.filter((n) => leaves[n] !== undefined);
  for (const name of names) checkLeaf(name, leaves[name] as Float32Array[], batch.pairs);
  await ensureTensorBackend();
  // Token ids are not used here: only the layout (bucketed widths, rows, mask) matters.
  const block = packBucketed(batch.pairs, 0, {});
  const inputs = trainBatchInputs(batch, block);
  const tensors: LeafTensors = {};
  for (const name of names) tensors[name] = leafTensor(leaves[name] as Float32Array[], block);
  const mask = np.array(block.responseMask).reshape([block.rows, block.responseWidth]);
  const out = compile(loss)(tensors, mask, inputs, np.array(scale));
  const metrics: Record<string, number> = {};
  for (const [k, t] of Object.entries(out.metrics)) metrics[k] = Number((await t.data())[0]);
  const value = Number((await out.loss.data())[0]) / scale;
  const grads: LeafValues = { logprobs: [] };
  for (const name of names) grads[name] = unpack(await (out.grads[name] as Tensor).data(), batch.pairs, block.responseWidth);
  return { loss: value, metrics, grads };
}

function checkLeaf(name: LeafName, rows: readonly Float32Array[], pairs: readonly TokenPair[]): void {
  if (rows.length !== pairs.length) throw new AppError(ErrorCode.BadRequest, `leaves.${name} has ${rows.length} rows, expected ${pairs.length}`);
  rows.forEach((row, i) => {
    const len = (pairs[i] as TokenPair).response.length;
    if (row.length !== len) throw new AppError(ErrorCode.BadRequest, `leaves.${name}[${i}] has ${row.length} values, expected ${len} (the response length)`);
  });
}

/** `[rows, R]`, 0 on padding; filler rows repeat the first pair as packPairs does. */
function leafTensor(perPair: readonly Float32Array[], block: PairBlock): Tensor {
  const { rows, responseWidth: width } = block;
  const data = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) data.set(perPair[r] ?? (perPair[0] as Float32Array), r * width);
  return np.array(data).reshape([rows, width]);
}

function unpack(data: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> }, pairs: readonly TokenPair[], width: number): Float32Array[] {
  return pairs.map((p, i) => Float32Array.from(data.subarray(i * width, i * width + p.response.length)));
}

function compile(loss: PolicyLoss): Compiled {
  let f = compiled.get(loss);
  if (f !== undefined) return f;
  f = jit((leaves: LeafTensors, mask: Tensor, inputs: Record<string, Tensor>, scale: Tensor) => {
    const objective = (own: LeafTensors): [Tensor, Record<string, Tensor>] => {
      const res = loss(leafInputs(own, mask, inputs));
      tree.dispose(own);
      return [res.loss.mul(scale), res.metrics ?? {}];
    };
    const [[value, metrics], grads] = valueAndGrad(objective, { hasAux: true })(leaves);
    mask.dispose();
    tree.dispose(inputs);
    return { loss: value, metrics, grads };
  });
  compiled.set(loss, f);
  return f;
}

/** LossInputs over traced leaves; a leaf the loss reads but the engine did not supply is a 400 naming it. */
function leafInputs(leaves: LeafTensors, mask: Tensor, inputs: Record<string, Tensor>): LossInputs {
  const leaf = (name: LeafName): Tensor => {
    const t = leaves[name];
    if (t === undefined) throw new AppError(ErrorCode.BadRequest, `loss reads leaves.${name}, which were not supplied`);
    return t.ref;
  };
  return {
    get logprobs() {
      return leaf('logprobs');
    },
    get entropy() {
      return leaf('entropy');
    },
    get values() {
      return leaf('values');
    },
    get mask() {
      return mask.ref;
    },
    input(name: string) {
      const t = inputs[name];
      if (t === undefined) throw new AppError(ErrorCode.BadRequest, `loss input ${name} was not supplied in the batch`);
      return t.ref;
    },
    inputNames: Object.keys(inputs),
  };
}
