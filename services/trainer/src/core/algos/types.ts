import { AppError, ErrorCode } from '@rl/service-kit/core';

/** A dense float buffer; [batch, seqLen] matrices are stored row-major. */
export type Floats = Float32Array | Float64Array;

/** A response mask (1 = response token, 0 = padding/observation); fractional weights are allowed as in verl. */
export type Mask = Float32Array | Float64Array | Uint8Array;

/** Group label of a sample (verl's `uid` / `index`): samples with equal labels share a prompt. */
export type GroupId = string | number;

/** Shape of a [batch, seqLen] token matrix. */
export interface Shape {
  readonly batchSize: number;
  readonly seqLen: number;
}

/** Throws `invalid_params` naming the field: core functions never crash on malformed input. */
export function invalid(field: string, message: string): AppError {
  return new AppError(ErrorCode.InvalidParams, `${field}: ${message}`, { details: { field } });
}

/** Checks that `shape` holds non-negative integers. */
export function assertShape(shape: Shape): void {
  const { batchSize, seqLen } = shape;
  if (!Number.isInteger(batchSize) || batchSize < 0) throw invalid('shape.batchSize', 'must be a non-negative integer');
  if (!Number.isInteger(seqLen) || seqLen < 0) throw invalid('shape.seqLen', 'must be a non-negative integer');
}

/** Checks that a token matrix has exactly batchSize * seqLen entries. */
export function assertMatrix(field: string, data: ArrayLike<number>, shape: Shape): void {
  const expected = shape.batchSize * shape.seqLen;
  if (data.length !== expected) {
    throw invalid(field, `expected ${expected} values for shape [${shape.batchSize}, ${shape.seqLen}], got ${data.length}`);
  }
}

/** Checks that a per-sample vector has batchSize entries. */
export function assertVector(field: string, data: ArrayLike<unknown>, batchSize: number): void {
  if (data.length !== batchSize) throw invalid(field, `expected ${batchSize} values (one per sample), got ${data.length}`);
}

/** Reads a typed array entry; indices are always in range here, so `noUncheckedIndexedAccess` noise stays local. */
export function at(data: ArrayLike<number>, i: number): number {
  return data[i] as number;
}

/** Sum of each row of a [batch, seqLen] matrix (verl `x.sum(dim=-1)`, no mask). */
export function rowSums(data: ArrayLike<number>, shape: Shape): Float64Array {
  const out = new Float64Array(shape.batchSize);
  for (let b = 0; b < shape.batchSize; b++) {
    let s = 0;
    for (let t = 0; t < shape.seqLen; t++) s += at(data, b * shape.seqLen + t);
    out[b] = s;
  }
  return out;
}

/** Broadcasts one scalar per sample over its row and multiplies by the mask (verl `scores.unsqueeze(-1) * mask`). */
export function broadcastRows(perSample: ArrayLike<number>, mask: Mask, shape: Shape): Float32Array {
  const out = new Float32Array(shape.batchSize * shape.seqLen);
  for (let b = 0; b < shape.batchSize; b++) {
    const v = at(perSample, b);
    for (let t = 0; t < shape.seqLen; t++) {
      const i = b * shape.seqLen + t;
      out[i] = v * at(mask, i);
    }
  }
  return out;
}
