// Which indices torch.topk(x, k, largest=True) returns on the CPU, ties included. torch's CPU
// kernel (aten TopKImpl.h `topk_impl_loop`) fills (value, index) pairs and then runs libstdc++'s
// std::partial_sort when k * 64 <= n, otherwise std::nth_element. Neither is stable, so on equal
// values the chosen indices depend on those algorithms' exact steps; they are restated here
// (libstdc++ bits/stl_heap.h and bits/stl_algo.h: __heap_select, __adjust_heap, __push_heap,
// __introselect, __move_median_to_first, __unguarded_partition, __insertion_sort).
import { invalid } from '../types.ts';

type Pair = { readonly v: number; readonly i: number };
type Less = (a: Pair, b: Pair) => boolean;

// torch's comparator for largest=True: NaN sorts first, then larger values.
const before: Less = (a, b) => (Number.isNaN(a.v) && !Number.isNaN(b.v)) || a.v > b.v;

function pushHeap(q: Pair[], first: number, hole: number, top: number, value: Pair, less: Less): void {
  let parent = Math.trunc((hole - 1) / 2);
  while (hole > top && less(q[first + parent] as Pair, value)) {
    q[first + hole] = q[first + parent] as Pair;
    hole = parent;
    parent = Math.trunc((hole - 1) / 2);
  }
  q[first + hole] = value;
}

function adjustHeap(q: Pair[], first: number, hole: number, len: number, value: Pair, less: Less): void {
  const top = hole;
  let child = hole;
  while (child < Math.trunc((len - 1) / 2)) {
    child = 2 * (child + 1);
    if (less(q[first + child] as Pair, q[first + child - 1] as Pair)) child--;
    q[first + hole] = q[first + child] as Pair;
    hole = child;
  }
  if ((len & 1) === 0 && child === Math.trunc((len - 2) / 2)) {
    child = 2 * (child + 1);
    q[first + hole] = q[first + child - 1] as Pair;
    hole = child - 1;
  }
  pushHeap(q, first, hole, top, value, less);
}

function makeHeap(q: Pair[], first: number, last: number, less: Less): void {
  const len = last - first;
  if (len < 2) return;
  for (let parent = Math.trunc((len - 2) / 2); ; parent--) {
    adjustHeap(q, first, parent, len, q[first + parent] as Pair, less);
    if (parent === 0) return;
  }
}

function heapSelect(q: Pair[], first: number, middle: number, last: number, less: Less): void {
  makeHeap(q, first, middle, less);
  for (let i = middle; i < last; i++) {
    if (less(q[i] as Pair, q[first] as Pair)) {
      // __pop_heap(first, middle, i): the heap top moves to i, the old q[i] sifts in.
      const value = q[i] as Pair;
      q[i] = q[first] as Pair;
      adjustHeap(q, first, 0, middle - first, value, less);
    }
  }
}

function swap(q: Pair[], a: number, b: number): void {
  const t = q[a] as Pair;
  q[a] = q[b] as Pair;
  q[b] = t;
}

function moveMedianToFirst(q: Pair[], result: number, a: number, b: number, c: number, less: Less): void {
  const [qa, qb, qc] = [q[a] as Pair, q[b] as Pair, q[c] as Pair];
  if (less(qa, qb)) {
    if (less(qb, qc)) swap(q, result, b);
    else if (less(qa, qc)) swap(q, result, c);
    else swap(q, result, a);
  } else if (less(qa, qc)) swap(q, result, a);
  else if (less(qb, qc)) swap(q, result, c);
  else swap(q, result, b);
}

function unguardedPartition(q: Pair[], first: number, last: number, pivot: number, less: Less): number {
  for (;;) {
    while (less(q[first] as Pair, q[pivot] as Pair)) first++;
    last--;
    while (less(q[pivot] as Pair, q[last] as Pair)) last--;
    if (!(first < last)) return first;
    swap(q, first, last);
    first++;
  }
}

function insertionSort(q: Pair[], first: number, last: number, less: Less): void {
  if (first === last) return;
  for (let i = first + 1; i !== last; i++) {
    const value = q[i] as Pair;
    if (less(value, q[first] as Pair)) {
      for (let j = i; j > first; j--) q[j] = q[j - 1] as Pair;
      q[first] = value;
    } else {
      let hole = i;
      while (less(value, q[hole - 1] as Pair)) {
        q[hole] = q[hole - 1] as Pair;
        hole--;
      }
      q[hole] = value;
    }
  }
}

function introselect(q: Pair[], first: number, nth: number, last: number, less: Less): void {
  // std::nth_element: depth limit 2 * floor(log2(n)).
  let depth = 2 * Math.floor(Math.log2(last - first));
  while (last - first > 3) {
    if (depth === 0) {
      heapSelect(q, first, nth + 1, last, less);
      swap(q, first, nth);
      return;
    }
    depth--;
    const mid = first + Math.trunc((last - first) / 2);
    moveMedianToFirst(q, first, first + 1, mid, last - 1, less);
    const cut = unguardedPartition(q, first + 1, last, first, less);
    if (cut <= nth) first = cut;
    else last = cut;
  }
  insertionSort(q, first, last, less);
}

/**
 * The set of indices `torch.topk(values, k, largest=True)` selects on the CPU, in ascending
 * index order (verl only uses the set). Values are compared as given: pass float32-rounded
 * numbers to reproduce torch's float32 ties. Throws when k is outside [0, n], as torch raises.
 */
export function torchTopkIndices(values: ArrayLike<number>, k: number): number[] {
  const n = values.length;
  if (!Number.isInteger(k) || k < 0 || k > n) throw invalid('k', `selected index k out of range (k=${k}, n=${n})`);
  if (k === 0) return [];
  const q: Pair[] = Array.from({ length: n }, (_, i) => ({ v: values[i] as number, i }));
  if (k * 64 <= n) heapSelect(q, 0, k, n, before);
  else introselect(q, 0, k - 1, n, before);
  return q
    .slice(0, k)
    .map((p) => p.i)
    .sort((a, b) => a - b);
}
