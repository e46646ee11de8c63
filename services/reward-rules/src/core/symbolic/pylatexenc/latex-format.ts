// Python `%`-formatting as pylatexenc's apply_simplify_repl uses it for
// replacement strings such as '%s/%s' (\frac) or '√(%(2)s)' (\sqrt).

/** Raised where Python raises KeyError: it escapes LatexNodes2Text entirely. */
export class FormatKeyError extends Error {}

const HAS_PERCENT_S = /(^|[^%])(%%)*%s/;
const SPEC = /%(?:\(([^)]*)\))?(.)/g;

/**
 * `fmt % args`, where `args` is a tuple of the macro arguments' texts when the
 * format has a bare `%s`, else a dict keyed '1', '2', ... . On the TypeError or
 * ValueError Python would raise, pylatexenc keeps the format string itself.
 */
export function applyPercentFormat(fmt: string, args: readonly string[]): string {
  if (!fmt.includes('%') || fmt.length === 1) return fmt;
  const tuple = HAS_PERCENT_S.test(fmt);
  let next = 0;
  let failed = false;
  const out = fmt.replace(SPEC, (whole: string, key: string | undefined, conv: string) => {
    if (conv === '%' && key === undefined) return '%';
    if (conv !== 's') {
      failed = true;
      return whole;
    }
    if (key !== undefined) {
      // A mapping key against a tuple is a TypeError ("format requires a mapping").
      if (tuple) {
        failed = true;
        return whole;
      }
      const idx = Number(key);
      const v = /^[1-9][0-9]*$/.test(key) ? args[idx - 1] : undefined;
      if (v === undefined) throw new FormatKeyError(`KeyError: '${key}'`);
      return v;
    }
    if (!tuple || next >= args.length) {
      failed = true;
      return whole;
    }
    return args[next++] as string;
  });
  // "not all arguments converted" is a TypeError too.
  if (failed || (tuple && next !== args.length)) return fmt;
  return out;
}
