/**
 * A token's meaning in the default model: a weighted mix of concepts, each of
 * which the graph turns into a fixed random vector. Tokens that share
 * concepts get similar vectors; that is the only way the model knows that two
 * different words are related.
 */

/** Concept key → weight, before packing. */
export type ConceptMix = Map<string, number>;

/** Adds `scale` × `mix` into `into`. */
export function addMix(into: ConceptMix, mix: ReadonlyMap<string, number>, scale: number): void {
  for (const [key, w] of mix) into.set(key, (into.get(key) ?? 0) + scale * w);
}

/** Hands out dense concept ids in first-seen order; id 0 is the null concept of weightless tokens. */
export class ConceptIds {
  readonly #ids = new Map<string, number>([['', 0]]);
  idOf(key: string): number {
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(key, id);
    }
    return id;
  }
  get count(): number {
    return this.#ids.size;
  }
}

/**
 * Packs a mix into `slots` (id, weight) pairs: the heaviest concepts (ties by
 * key), scaled to unit L2 norm and then by `tokenWeight`, weights rounded to 6
 * decimals so the file does not hinge on the last bit of floating point;
 * unused slots get the null concept with weight 0.
 */
export function packMix(mix: ConceptMix, slots: number, tokenWeight: number, ids: ConceptIds): { ids: number[]; weights: number[] } {
  const top = [...mix.entries()]
    .filter(([, w]) => w > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, slots);
  const norm = Math.sqrt(top.reduce((s, [, w]) => s + w * w, 0));
  const out = { ids: new Array<number>(slots).fill(0), weights: new Array<number>(slots).fill(0) };
  if (norm === 0 || tokenWeight === 0) return out;
  top.forEach(([key, w], i) => {
    out.ids[i] = ids.idOf(key);
    out.weights[i] = Math.round((tokenWeight * w * 1e6) / norm) / 1e6;
  });
  return out;
}
