// verl math_reward.last_boxed_only_string / remove_boxed (Hendrycks MATH). The
// brace walk works on UTF-16 indexes: it only compares BMP characters and
// slices between found positions, so the substrings equal Python's.

const BOXED_SPACE = '\\boxed ';
const BOXED_BRACE = '\\boxed{';
const FBOX = '\\fbox';

interface BoxMarkers {
  boxed: number;
  boxedSpace: number;
}

// Searching is the hot path on long outputs. V8's indexOf/lastIndexOf are slow
// for patterns like "\boxed " (frequent "\" first, frequent " " last); a
// forward indexOf of "xed" then a prefix check is 5-10x faster, and forward
// indexOf of "\fbox" beats lastIndexOf.

/** Last UTF-16 index of "\boxed" and of "\boxed " (-1 when absent), as Python's rfind. */
function scanBoxed(s: string): BoxMarkers {
  const found: BoxMarkers = { boxed: -1, boxedSpace: -1 };
  for (let i = s.indexOf('xed', 3); i >= 0; i = s.indexOf('xed', i + 3)) {
    if (s.startsWith('\\bo', i - 3)) {
      found.boxed = i - 3;
      if (s.charCodeAt(i + 3) === 0x20) found.boxedSpace = i - 3;
    }
  }
  return found;
}

/** Python `s.rfind(sub)` via forward searches (see above). */
function lastIndexOfForward(s: string, sub: string): number {
  let last = -1;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + 1)) last = i;
  return last;
}

/** verl `math_reward.last_boxed_only_string`: the last `\boxed{...}` / `\boxed ...` / `\fbox{...}` or null. */
export function lastBoxedOnlyString(s: string): string | null {
  const markers = scanBoxed(s);
  // verl checks `"\\boxed " in string` before anything else: the text after the
  // LAST "\boxed " up to the first "$" wins, even when a later "\boxed{" exists.
  if (markers.boxedSpace >= 0) {
    const after = s.slice(markers.boxedSpace + BOXED_SPACE.length);
    const dollar = after.indexOf('$');
    return BOXED_SPACE + (dollar >= 0 ? after.slice(0, dollar) : after);
  }
  const idx = markers.boxed >= 0 ? markers.boxed : lastIndexOfForward(s, FBOX);
  return idx < 0 ? null : balancedBoxAt(s, idx);
}

/**
 * The box starting at `idx` up to the `}` where the brace count first returns to
 * zero, or null. verl's `last_boxed_only_string` (math_reward and math_dapo) counts
 * from idx, so a "}" before any "{" drives the count negative and only a return to
 * zero after a "}" ends the box.
 */
export function balancedBoxAt(s: string, idx: number): string | null {
  let open = 0;
  for (let i = idx; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x7b) {
      open++;
    } else if (c === 0x7d) {
      open--;
      if (open === 0) return s.slice(idx, i + 1);
    }
  }
  return null;
}

/**
 * verl `math_reward.remove_boxed`; null where verl's asserts fail (the caller
 * then scores 0.0). `\fbox{...}` always fails the `\boxed{` assert in verl.
 */
export function removeBoxed(s: string): string | null {
  if (s.includes(BOXED_SPACE)) {
    return s.startsWith(BOXED_SPACE) ? s.slice(BOXED_SPACE.length) : null;
  }
  if (!s.startsWith(BOXED_BRACE) || !s.endsWith('}')) return null;
  return s.slice(BOXED_BRACE.length, -1);
}
