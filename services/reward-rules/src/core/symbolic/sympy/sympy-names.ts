// The part of parse_expr's global namespace (`from sympy import *` plus Python
// builtins, sympy 1.14) that mathruler's input can reach: the answer is
// lowercased and should_allow_eval refuses more than two distinct letters
// outside "sqrt"/"frac", so only these lowercase names can occur, besides the
// names sympy's own transformations insert.

/** Names bound to non-callable sympy objects (auto_symbol keeps them; not callable). */
const CONSTANTS = ['pi', 'oo', 'nan', 'zoo', 'I', 'E'];

/** Names bound to callables: functions, classes and builtins. */
const CALLABLES = [
  // inserted by the transformations
  'Symbol',
  'Function',
  'Integer',
  'Float',
  'Rational',
  'Number',
  'factorial',
  'factorial2',
  // reachable from a normalised answer
  'sqrt',
  'frac',
  'ln',
  're',
  'im',
  'csc',
  'ff',
  'rf',
  'li',
  'jn',
  'yn',
  'hn1',
  'hn2',
  'eye',
  'fft',
  'gff',
  'ntt',
  'fu',
  'all',
  'id',
];

const KNOWN = new Set([...CONSTANTS, ...CALLABLES]);
const CALLABLE = new Set(CALLABLES);

/** `name in global_dict` (single-letter uppercase sympy names included for split_symbols). */
export function inGlobals(name: string): boolean {
  return KNOWN.has(name) || name === 'N' || name === 'O' || name === 'Q' || name === 'S';
}

/** sympy `_token_callable`: the global is callable and not a Symbol. */
export function isCallableName(name: string): boolean {
  return CALLABLE.has(name) || name === 'N' || name === 'O' || name === 'S';
}

// unicodedata.lookup('GREEK SMALL LETTER ' + name) succeeds (case-insensitively) for these.
const GREEK = new Set(
  (
    'heta alpha beta gamma delta epsilon zeta eta theta iota kappa lamda mu nu xi omicron pi rho ' +
    'sigma tau upsilon phi chi psi omega stigma digamma koppa sampi sho san'
  ).split(' '),
);

/** sympy `_token_splittable`: whether split_symbols breaks a symbol name into letters. */
export function isSplittable(name: string): boolean {
  if (name.includes('_')) return false;
  if (GREEK.has(name.toLowerCase())) return false;
  return [...name].length > 1;
}
