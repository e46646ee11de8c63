// verl search_r1_like_qa_em.normalize_answer (SQuAD-style): lower, drop ASCII
// punctuation, drop articles, collapse whitespace.
import { PY_WORD_END, PY_WORD_START } from '../py/regex.ts';
import { pySplit } from '../py/whitespace.ts';

// Python string.punctuation: ASCII only.
const PUNCTUATION = /[!-/:-@[-`{-~]/g;
// re.sub(r"\b(a|an|the)\b", " ", text) with Python's Unicode-aware \b.
const ARTICLES = new RegExp(`${PY_WORD_START}(?:a|an|the)${PY_WORD_END}`, 'gu');

/** verl `normalize_answer`: the form EM and SubEM compare. */
export function normalizeAnswer(s: string): string {
  // JS toLowerCase matches Python str.lower() (full mappings, final sigma).
  const noPunctuation = s.toLowerCase().replace(PUNCTUATION, '');
  return pySplit(noPunctuation.replace(ARTICLES, ' ')).join(' ');
}
