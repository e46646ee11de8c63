// Fragments for building JS regexes (always with the `u` flag) that behave like
// Python `re` patterns on str. Properties follow Node's Unicode tables; Python's
// own tables are older (3.11: Unicode 14), so only characters assigned since
// then can differ.

/** Python `.` without DOTALL: anything but `\n` (JS `.` also refuses \r, \u2028, \u2029). */
export const PY_DOT = '[^\\n]';

/** Body of a class matching Python's `\w` on str (`str.isalnum()` or `_`; equals letters + numbers). */
export const PY_WORD_CLASS_BODY = '\\p{L}\\p{N}_';

/** Python `\b` before a word character: the previous code point is not a word character. */
export const PY_WORD_START = `(?<![${PY_WORD_CLASS_BODY}])`;

/** Python `\b` after a word character: the next code point is not a word character. */
export const PY_WORD_END = `(?![${PY_WORD_CLASS_BODY}])`;
