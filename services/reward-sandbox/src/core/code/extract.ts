// Code extraction of verl's sandbox_fusion `compute_score` (verl/utils/reward_score/sandbox_fusion/__init__.py).
// prime_code differs: it always takes `completion.split("```python")[-1].split("```")[0]`, so a
// completion with no fence is scored as pure code there, while sandbox_fusion scores it 0.

const FENCE = '```';
const PYTHON_FENCE = '```python';
// Python str.strip() whitespace (str.isspace()).
const PY_STRIP =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Python's str.strip() whitespace includes the separators \x1c-\x1f
  /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/gu;
// Python str.isalpha(): non-empty, every code point in Lu/Ll/Lt/Lm/Lo.
const PY_ALPHA = /^\p{L}+$/u;

/** verl's "missing code block" metadata message, scored 0. */
export const MISSING_CODE_BLOCK = 'Invalid completion (missing code block)';

/**
 * sandbox_fusion `compute_score` extraction, or null when the completion has no fence:
 * - contains "```python": the text after the LAST "```python" up to the next "```" (or the end);
 *   nothing is stripped, so "```python3\n…" keeps a leading "3" line, as in verl;
 * - else contains "```": the FIRST fenced block; its first line is dropped when it is a bare
 *   alphabetic language tag ("cpp", "Python") and the block has a newline.
 */
export function extractCode(completion: string): string | null {
  if (completion.includes(PYTHON_FENCE)) {
    const afterLast = completion.slice(completion.lastIndexOf(PYTHON_FENCE) + PYTHON_FENCE.length);
    const end = afterLast.indexOf(FENCE);
    return end === -1 ? afterLast : afterLast.slice(0, end);
  }
  if (completion.includes(FENCE)) {
    // parts[1] of completion.split("```") always exists here.
    const parts = completion.split(FENCE);
    let solution = parts[1] ?? '';
    const nl = solution.indexOf('\n');
    if (nl !== -1) {
      const firstLine = solution.slice(0, nl);
      if (PY_ALPHA.test(firstLine.replace(PY_STRIP, ''))) solution = solution.slice(nl + 1);
    }
    return solution;
  }
  return null;
}
