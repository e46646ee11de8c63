import { assertVector, at, invalid, type GroupId } from '../types.ts';

/** Row numbers of each group, in first-seen order (verl builds `id2score` with a defaultdict the same way). */
export function groupRows(index: ReadonlyArray<GroupId>, batchSize: number): Map<GroupId, number[]> {
  assertVector('index', index, batchSize);
  const groups = new Map<GroupId, number[]>();
  for (let i = 0; i < batchSize; i++) {
    const id = index[i] as GroupId;
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
      throw invalid(`index[${i}]`, 'group label must be a string or a finite number');
    }
    const rows = groups.get(id);
    if (rows === undefined) groups.set(id, [i]);
    else rows.push(i);
  }
  return groups;
}

/** Mean of the selected entries (torch.mean). */
export function meanOf(values: ArrayLike<number>, rows: ReadonlyArray<number>): number {
  let s = 0;
  for (const r of rows) s += at(values, r);
  return s / rows.length;
}

/** Unbiased standard deviation of the selected entries (torch.std, divisor n - 1). */
export function stdOf(values: ArrayLike<number>, rows: ReadonlyArray<number>): number {
  const mean = meanOf(values, rows);
  let s = 0;
  for (const r of rows) {
    const c = at(values, r) - mean;
    s += c * c;
  }
  return Math.sqrt(s / (rows.length - 1));
}
