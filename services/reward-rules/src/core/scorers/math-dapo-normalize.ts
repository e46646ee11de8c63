// verl math_dapo.normalize_final_answer (Minerva normalisation). Python `.`
// excludes only "\n" (PY_DOT); `[^{]` matches "\n" too, as in Python. The `u`
// flag makes classes consume whole code points, like Python on str.
import { PY_DOT } from '../py/regex.ts';
import { pyIsDigit, pyReplace } from '../py/str.ts';
import { pyStrip } from '../py/whitespace.ts';

// verl math_dapo.SUBSTITUTIONS, applied in order.
const SUBSTITUTIONS: ReadonlyArray<readonly [string, string]> = [
  ['an ', ''],
  ['a ', ''],
  ['.$', '$'],
  ['\\$', ''],
  ['\\ ', ''],
  [' ', ''],
  ['mbox', 'text'],
  [',\\text{and}', ','],
  ['\\text{and}', ','],
  ['\\text{m}', '\\text{}'],
];

// verl math_dapo.REMOVED_EXPRESSIONS, removed in order.
const REMOVED_EXPRESSIONS: readonly string[] = [
  'square',
  'ways',
  'integers',
  'dollars',
  'mph',
  'inches',
  'hours',
  'km',
  'units',
  '\\ldots',
  'sue',
  'points',
  'feet',
  'minutes',
  'digits',
  'cents',
  'degrees',
  'cm',
  'gm',
  'pounds',
  'meters',
  'meals',
  'edges',
  'students',
  'childrentickets',
  'multiples',
  '\\text{s}',
  '\\text{.}',
  '\\text{\ns}',
  '\\text{}^2',
  '\\text{}^3',
  '\\text{\n}',
  '\\text{}',
  '\\mathrm{th}',
  '^\\circ',
  '^{\\circ}',
  '\\;',
  ',\\!',
  '{,}',
  '"',
  '\\dots',
];

// re.sub(r"(.*?)(\$)(.*?)(\$)(.*)", "$\\3$"): keeps only the first $...$ of each line.
const DOLLAR_PAIR = new RegExp(`${PY_DOT}*?\\$(${PY_DOT}*?)\\$${PY_DOT}*`, 'gu');
const TEXT = new RegExp(`\\\\text\\{(${PY_DOT}*?)\\}`, 'gu');
const TEXTBF = new RegExp(`\\\\textbf\\{(${PY_DOT}*?)\\}`, 'gu');
const OVERLINE = new RegExp(`\\\\overline\\{(${PY_DOT}*?)\\}`, 'gu');
// Greedy: up to the last "}" of the line.
const BOXED = new RegExp(`\\\\boxed\\{(${PY_DOT}*)\\}`, 'gu');
const FRAC = new RegExp(`frac([^{])(${PY_DOT})`, 'gu');
const SQRT = /sqrt([^{])/gu;

function keepGroup(_match: string, inner: string): string {
  return inner;
}

/** verl `math_dapo.normalize_final_answer`. */
export function normalizeFinalAnswer(finalAnswer: string): string {
  // split("=")[-1]
  let s = finalAnswer.slice(finalAnswer.lastIndexOf('=') + 1);
  for (const [before, after] of SUBSTITUTIONS) s = pyReplace(s, before, after);
  for (const expr of REMOVED_EXPRESSIONS) s = pyReplace(s, expr, '');
  // The includes() guards only skip regexes that cannot match.
  if (s.indexOf('$') !== s.lastIndexOf('$')) s = s.replace(DOLLAR_PAIR, (_m, inner: string) => `$${inner}$`);
  if (s.includes('\\text{')) s = s.replace(TEXT, keepGroup);
  if (s.includes('\\textbf{')) s = s.replace(TEXTBF, keepGroup);
  if (s.includes('\\overline{')) s = s.replace(OVERLINE, keepGroup);
  if (s.includes('\\boxed{')) s = s.replace(BOXED, keepGroup);
  if (s.includes('frac')) s = s.replace(FRAC, (_m, a: string, b: string) => `frac{${a}}{${b}}`);
  if (s.includes('sqrt')) s = s.replace(SQRT, (_m, a: string) => `sqrt{${a}}`);
  s = pyReplace(s, '$', '');
  const noCommas = pyReplace(s, ',', '');
  if (pyIsDigit(noCommas)) s = noCommas;
  return pyStrip(s);
}
