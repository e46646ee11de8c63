import { describe, expect, it } from 'vitest';
import { extractCode } from './extract.ts';

// [completion, extracted code or null]: expected values from running verl's sandbox_fusion
// compute_score extraction (Python 3.11); prime_code's result is noted where it differs.
const CASES: Array<[string, string | null]> = [
  ['Here:\n```python\nprint(1)\n```\nDone', '\nprint(1)\n'],
  ['```python\na=1\n```\ntext\n```python\nb=2\n```', '\nb=2\n'],
  ['```python\nunterminated', '\nunterminated'],
  ['```python3\nprint(1)\n```', '3\nprint(1)\n'],
  ['```Python\nprint(1)\n```', 'print(1)\n'], // prime_code: ""
  ['```cpp\nint main(){}\n```\n```python\nx\n```', '\nx\n'],
  ['```cpp\nint main(){}\n```\n```java\nclass A{}\n```', 'int main(){}\n'], // prime_code: ""
  ['```\nprint(1)\n```', '\nprint(1)\n'], // prime_code: ""
  ['``` cpp \nint x;\n```', 'int x;\n'], // prime_code: ""
  ['```c++\nint x;\n```', 'c++\nint x;\n'], // prime_code: ""
  ['```print(1)```', 'print(1)'], // prime_code: ""
  ['```py3\nx=1\n```', 'py3\nx=1\n'], // prime_code: ""
  ['```\u00e9t\u00e9\nx=1\n```', 'x=1\n'], // prime_code: ""
  ['no fence at all', null], // prime_code: "no fence at all"
  ['``', null], // prime_code: "``"
  ['text ```', ''], // prime_code: "text "
  ['```\u3000cpp\u3000\nx\n```', 'x\n'], // prime_code: ""
  ['```\u001ccpp\nx\n```', 'x\n'], // prime_code: ""
];

describe('extractCode (sandbox_fusion compute_score)', () => {
  it.each(CASES)('%j', (completion, expected) => {
    expect(extractCode(completion)).toBe(expected);
  });
});
