import { FUNCTION_WORDS } from './function-words.ts';

/**
 * The English content words of a CC-CEDICT gloss: what a Chinese word is
 * linked to. "to be afraid" → afraid; "(double-edged) sword" → sword;
 * "fiery or flaming" → fiery, flaming. Glosses that describe usage rather
 * than meaning ("surname Huo", "variant of 劍", "CL:把[ba3]") give nothing.
 */

const USAGE_GLOSS =
  /^(surname|variant of|old variant|archaic variant|see |cl:|abbr|classifier|used in|used for|taiwan pr|also pr|also written|erhua|japanese|korean|radical|pr\.|\(arch|\(old|\(dialect|\(slang|\(tw|\(cant|\(bound|\(onom)/;
// Words glosses use to talk about words: "sb", "sth", "fig.", "lit.", "(coll.)".
const GLOSS_STOP_WORDS: ReadonlySet<string> = new Set([
  'sb',
  'sth',
  'etc',
  'fig',
  'lit',
  'coll',
  'esp',
  'e',
  'g',
  'something',
  'someone',
  'somebody',
  'oneself',
  'kind',
  'sort',
  'type',
  'used',
  'particle',
  'indicating',
  'expressing',
  'modal',
  'auxiliary',
]);

/** Most content words taken from one gloss: a long gloss is a definition, not a translation. */
export const MAX_WORDS_PER_GLOSS = 3;

/** Content words of one gloss, in order, at most {@link MAX_WORDS_PER_GLOSS}; none for a usage gloss. */
export function glossContentWords(gloss: string): string[] {
  const g = gloss.trim().toLowerCase();
  if (USAGE_GLOSS.test(g)) return [];
  const words =
    g
      .replace(/\([^)]*\)/g, ' ')
      .replace(/\[[^\]]*\]/g, ' ')
      .match(/[a-z]+/g) ?? [];
  const content = words.filter((w) => w.length > 1 && !FUNCTION_WORDS.has(w) && !GLOSS_STOP_WORDS.has(w));
  return content.length > MAX_WORDS_PER_GLOSS ? [] : content;
}
