/**
 * BERTScore-style recall: how much of a reference's content a reply conveys,
 * in any words. Each reference token is matched to its most similar reply
 * token; the matches are averaged with the reference tokens' state lengths as
 * weights. In the default model a token state's length is its IDF-like weight
 * (function words and punctuation count little or nothing); in a transformer
 * export the lengths are near-uniform, which gives BERTScore's plain recall.
 */

function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}

/**
 * Σ_j |r_j| · max_i cos(x_i, r_j) / Σ_j |r_j| over reference tokens r_j and reply
 * tokens x_i, in [-1, 1]; 0 when either side has no token of non-zero length.
 */
export function tokenRecall(reply: ReadonlyArray<Float32Array>, reference: ReadonlyArray<Float32Array>): number {
  const units = (vs: ReadonlyArray<Float32Array>) =>
    vs.flatMap((v) => {
      const n = norm(v);
      return n > 0 ? [{ unit: v.map((x) => x / n), weight: n }] : [];
    });
  const x = units(reply);
  const r = units(reference);
  if (x.length === 0 || r.length === 0) return 0;
  let matched = 0;
  let total = 0;
  for (const { unit: rv, weight } of r) {
    let best = -1;
    for (const { unit: xv } of x) {
      let dot = 0;
      for (let d = 0; d < rv.length; d++) dot += rv[d]! * xv[d]!;
      if (dot > best) best = dot;
    }
    matched += weight * best;
    total += weight;
  }
  return matched / total;
}
