// Reading a number out of a judge's answer. Pure: text in, a number or the
// reason there is none out; the caller turns a reason into `judge_unparseable`.
import type { ParserConfig } from './judge-config.ts';

/** A parsed score, or why the answer holds none. */
export type ParsedScore = { ok: true; value: number } | { ok: false; reason: string };

/** Reads a score from an answer whose thinking is already removed. */
export type ScoreParser = (answer: string) => ParsedScore;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A finite number from text such as ` 7 `, `7.5`, `-1`; undefined otherwise. */
function toNumber(text: string): number | undefined {
  const t = text.trim();
  return NUMBER.test(t) ? Number(t) : undefined;
}

const fail = (reason: string): ParsedScore => ({ ok: false, reason });

/**
 * Removes reasoning models' `<think>...</think>` blocks. A `</think>` with no
 * opening tag means the template opened the block in the prompt (Qwen3, DeepSeek-R1):
 * the answer is what follows the last one. An unclosed `<think>` means the answer
 * was cut inside its thinking (max_tokens): nothing is left to parse.
 */
export function stripThinking(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  const close = out.lastIndexOf('</think>');
  if (close >= 0) out = out.slice(close + '</think>'.length);
  const open = out.indexOf('<think>');
  if (open >= 0) out = out.slice(0, open);
  return out.trim();
}

/** Compiles a parser; an invalid pattern throws (the config loader names the key). */
export function createParser(spec: ParserConfig): ScoreParser {
  switch (spec.type) {
    case 'pattern':
      return patternParser(new RegExp(spec.pattern, `${spec.flags.replace('g', '')}g`), spec.match);
    case 'boxed':
      return boxedParser;
    case 'json':
      return jsonParser(spec.field.split('.'));
    case 'yes_no':
      return yesNoParser(spec.yes, spec.no);
  }
}

function patternParser(re: RegExp, which: 'first' | 'last'): ScoreParser {
  return (answer) => {
    const matches = [...answer.matchAll(re)];
    const m = which === 'first' ? matches[0] : matches.at(-1);
    if (m === undefined) return fail(`no match of /${re.source}/`);
    const group = m[1];
    const value = group === undefined ? undefined : toNumber(group);
    return value === undefined ? fail(`/${re.source}/ matched '${m[0].slice(0, 80)}' but its first group is not a number`) : { ok: true, value };
  };
}

/** The contents of the last `\boxed{...}`, braces balanced. */
function lastBoxed(text: string): string | undefined {
  const start = text.lastIndexOf('\\boxed{');
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start + '\\boxed'.length; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(start + '\\boxed{'.length, i);
  }
  return undefined;
}

const boxedParser: ScoreParser = (answer) => {
  const inner = lastBoxed(answer);
  if (inner === undefined) return fail('no complete \\boxed{...}');
  const value = toNumber(inner);
  return value === undefined ? fail(`\\boxed{${inner.slice(0, 80)}} is not a number`) : { ok: true, value };
};

/** JSON objects the answer may hold: all of it, each ``` fence, then the span from the first `{` to the last `}`. */
function jsonCandidates(answer: string): string[] {
  const out = [answer];
  for (const m of answer.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) out.push(m[1] ?? '');
  const open = answer.indexOf('{');
  const close = answer.lastIndexOf('}');
  if (open >= 0 && close > open) out.push(answer.slice(open, close + 1));
  return out;
}

function jsonParser(path: readonly string[]): ScoreParser {
  const field = path.join('.');
  return (answer) => {
    for (const candidate of jsonCandidates(answer)) {
      let value: unknown;
      try {
        value = JSON.parse(candidate);
      } catch {
        continue;
      }
      if (typeof value !== 'object' || value === null) continue;
      for (const key of path)
        value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
      const n = typeof value === 'string' ? toNumber(value) : undefined;
      if (n !== undefined) return { ok: true, value: n };
      return fail(`the JSON object has no number at '${field}'`);
    }
    return fail('no JSON object in the answer');
  };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Words of letters need boundaries (`no` inside `know`); CJK words such as 是/否 have none to need.
const wordRe = (w: string) => (/^[\p{Script=Latin}\d_]+$/u.test(w) ? `(?<![\\p{L}\\p{N}_])${escapeRe(w)}(?![\\p{L}\\p{N}_])` : escapeRe(w));

function yesNoParser(yes: readonly string[], no: readonly string[]): ScoreParser {
  // Longest first, so `incorrect` is not read as `correct`.
  const words = [...yes.map((w) => [w, 1] as const), ...no.map((w) => [w, 0] as const)].sort((a, b) => b[0].length - a[0].length);
  const re = new RegExp(words.map(([w]) => `(${wordRe(w)})`).join('|'), 'giu');
  return (answer) => {
    const m = [...answer.matchAll(re)].at(-1);
    if (m === undefined) return fail(`none of ${[...yes, ...no].map((w) => `'${w}'`).join(', ')} in the answer`);
    const index = m.slice(1).findIndex((g) => g !== undefined);
    return { ok: true, value: words[index]?.[1] ?? 0 };
  };
}

/** Maps a parsed score on [lo, hi] onto [0, 1]; outside the range is a reason, never clamped. */
export function normalizeScore(value: number, [lo, hi]: readonly [number, number]): ParsedScore {
  if (value < lo || value > hi) return fail(`score ${value} is outside the judge's range [${lo}, ${hi}]`);
  return { ok: true, value: (value - lo) / (hi - lo) };
}
