import { describe, expect, it } from 'vitest';
import { latexToText } from './latex-to-text.ts';

// Expected values: pylatexenc 2.10 `LatexNodes2Text().latex_to_text(input)`;
// null where pylatexenc raises (mathruler then keeps the latex unchanged).
const CASES: ReadonlyArray<readonly [string, string | null]> = [
  [' \\frac{1}{2}', ' 1/2'],
  [' \\frac{a+b}{c}', ' a+b/c'],
  ['\\frac12', '1/2'],
  ['\\frac\\pi2', 'π/2'],
  ['\\frac{1}', '%s/%s1'],
  ['\\sqrt{3}', '√(3)'],
  ['\\sqrt[3]{8}', '√(8)'],
  ['\\sqrt 3', '√(3)'],
  ['\\pi r^2', 'πr^2'],
  ['\\left( x \\right)', '( x )'],
  ['3 \\times 4', '3 ×4'],
  ['2\\cdot 3', '2·3'],
  ['\\text{cm}^2', 'cm^2'],
  ['\\mbox{cm}', ''],
  ['\\textbf{5}', '5'],
  ['\\mathrm{m}', 'm'],
  ['30^{\\circ}', '30^∘'],
  ['\\angle ABC', '∠ABC'],
  ['\\triangle ABC', 'ABC'],
  ['\\overline{AB}', 'AB'],
  ['\\alpha+\\beta', 'α+β'],
  ['\\infty', '∞'],
  ['A \\cup B', 'A ∪B'],
  ['\\le', '≤'],
  ['\\%', '%'],
  ['\\{1\\}', '{1}'],
  ['a}b', 'ab'],
  ['{{x}}', 'x'],
  ['\\(x\\)', 'x'],
  ['\\[y\\]', '\n    y\n'],
  ['\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}', '[ 1 2; 3 4 ]'],
  ['\\begin{equation}x\\end{equation}', '\n    x\n'],
  ['\\hat{x}', 'x̂'],
  ['\\vec{v}', 'v⃗'],
  ['\\mathbf{x}', '𝐱'],
  ['\\mathbb{R}', 'ℝ'],
  ['\\,', ' '],
  ['a~b', 'a b'],
  ["``q''", '“q”'],
  ['\\verb|x|y', 'y'],
  ['x % c\ny', 'x \ny'],
  ['\\href{a}{b}', null],
  ['\\sqrt', null],
];

describe('latexToText (pylatexenc LatexNodes2Text port)', () => {
  it.each(CASES)('%j -> %j', (input, expected) => {
    if (expected === null) expect(() => latexToText(input)).toThrow();
    else expect(latexToText(input)).toBe(expected);
  });

  it('refuses pathological nesting instead of overflowing the stack', () => {
    expect(() => latexToText('{'.repeat(5000) + 'x' + '}'.repeat(5000))).toThrow();
  });
});
