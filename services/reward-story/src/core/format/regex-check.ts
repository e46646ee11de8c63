import { RE2JS } from 're2js';

/** Tells whether a reply obeys a format. */
export type FormatCheck = (reply: string) => boolean;

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

/**
 * Compiles a whole-reply regex with RE2 (re2js): matching takes time linear in
 * the reply, so no pattern a dataset carries can stall the service on hostile
 * model output. RE2 has no look-around and no back-references; such patterns
 * are rejected here. Throws the engine's syntax error.
 */
export function compileRegexCheck(pattern: string, flags = ''): FormatCheck {
  let bits = 0;
  for (const f of flags) bits |= FLAG_BITS[f] ?? 0;
  const re = RE2JS.compile(pattern, bits);
  return function matchesWholeReply(reply) {
    return re.matches(reply);
  };
}

/**
 * The RE2 engine in the shape Ajv's `code.regExp` option wants, so JSON-schema
 * `pattern` and `patternProperties` run in linear time too. JSON-schema patterns
 * search (they are not anchored), hence `test`.
 */
export function re2RegExpEngine(): ((pattern: string) => { test(s: string): boolean }) & { code: string } {
  const engine = (pattern: string) => {
    const re = RE2JS.compile(pattern);
    return { test: (s: string) => re.test(s) };
  };
  return Object.assign(engine, { code: 're2js' });
}
