/**
 * A crude English un-inflector for the default model's vocabulary: "swords",
 * "walked", "running", "stories", "quickly" share the vector of "sword",
 * "walk", "run", "story", "quick". Regular suffixes only, and only when the
 * stripped form is itself a known word; irregular forms ("ran", "mice") stay
 * apart, and a few false friends slip through (kept out by EXCEPTIONS where
 * spotted). No attempt at being a real lemmatiser.
 */

// Words that look inflected but are not (or whose "base" means something else).
const EXCEPTIONS: ReadonlySet<string> = new Set([
  'news',
  'lens',
  'series',
  'species',
  'physics',
  'always',
  'perhaps',
  'towards',
  'sometimes',
  'evening',
  'morning',
  'during',
  'string',
  'wedding',
  'ceiling',
  'spring',
  'thing',
  'nothing',
  'something',
  'anything',
  'everything',
  'king',
  'ring',
  'sing',
  'wing',
  'bring',
  'lightning',
  'pudding',
  'viking',
  'wicked',
  'rugged',
  'ragged',
  'crooked',
  'naked',
  'sacred',
  'hundred',
  'kindred',
  'beloved',
  'seed',
  'shed',
  'feed',
  'weed',
  'need',
  'deed',
  'tired',
  'does',
  'meaning',
  'apply',
  'supply',
  'reply',
  'belly',
  'emily',
  'early',
  'only',
  'family',
  'italy',
  'holly',
  'bully',
]);

const CONSONANT = /[bcdfghjklmnpqrstvwxz]$/;

/** "runn" → "run"; not for ll/ss/zz, which English keeps ("calling", "missing"). */
function undouble(stem: string): string | undefined {
  const n = stem.length;
  return n >= 4 && stem[n - 1] === stem[n - 2] && CONSONANT.test(stem) && !/(ll|ss|zz)$/.test(stem) ? stem.slice(0, -1) : undefined;
}

/**
 * Base candidates for a stem that lost "-ing" or "-ed". A doubled consonant
 * is undone ("running" → run), "ck" never takes an e, a consonant-vowel-
 * consonant stem usually lost a silent e ("caring" → care, not car); after a
 * vowel pair or a consonant cluster both readings occur ("cooking" → cook,
 * "leaving" → leave, "parting" → part, "changing" → change), and the commoner
 * word wins, which also keeps surnames like Cooke or Browne out.
 */
function verbStemCandidates(stem: string, rankOf: ReadonlyMap<string, number>): Array<string | undefined> {
  const withE = `${stem}e`;
  if (/([bcdfghjklmnpqrstvz])\1$/.test(stem)) return [undouble(stem), stem];
  if (stem.endsWith('ck')) return [stem];
  if (/[^aeiou][aeiou][^aeiouwxy]$/.test(stem)) return [withE, stem];
  return (rankOf.get(stem) ?? Infinity) <= (rankOf.get(withE) ?? Infinity) ? [stem, withE] : [withE, stem];
}

/** Candidate base forms, most likely first. */
function candidates(word: string, rankOf: ReadonlyMap<string, number>): Array<string | undefined> {
  const w = word;
  const cut = (n: number) => w.slice(0, -n);
  if (w.endsWith('iest')) return [`${cut(4)}y`];
  if (w.endsWith('ier')) return [`${cut(3)}y`];
  if (w.endsWith('ies') || w.endsWith('ied')) return [`${cut(3)}y`, cut(1)];
  if (w.endsWith('ves')) return [`${cut(3)}f`, `${cut(3)}fe`, cut(1)];
  if (w.endsWith('ing')) return verbStemCandidates(cut(3), rankOf);
  if (/(ss|sh|ch|x)ed$/.test(w)) return [cut(2)];
  if (w.endsWith('ed')) return verbStemCandidates(cut(2), rankOf);
  if (w.endsWith('ily')) return [`${cut(3)}y`];
  if (w.endsWith('ically')) return [cut(2), cut(4)];
  if (w.endsWith('ly')) return [CONSONANT.test(cut(2)) ? `${cut(2)}le` : undefined, cut(2)];
  if (/(ss|sh|ch|x|z|o)es$/.test(w)) return [cut(2), cut(1)];
  if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) return [cut(1)];
  return [];
}

/**
 * The base form of `word` among the known words (word → frequency rank), or
 * undefined when it is not a regular inflection of one.
 */
export function findBaseForm(word: string, rankOf: ReadonlyMap<string, number>): string | undefined {
  if (word.length < 4 || EXCEPTIONS.has(word)) return undefined;
  for (const base of candidates(word, rankOf)) {
    if (base !== undefined && base !== word && base.length >= 3 && rankOf.has(base)) return base;
  }
  return undefined;
}
