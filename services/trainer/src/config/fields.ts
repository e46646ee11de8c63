import { z } from 'zod';

// Field builders whose every failure says what was expected, so the loader can
// print `data.train_batch_size: expected a positive integer, got "x"`. The
// `got ...` part is added by format-issues.ts from the raw input.

/** Message prefix the formatter recognises; kept in one place so both sides agree. */
export const EXPECTED = 'expected ';

const expect = (what: string) => ({ error: `${EXPECTED}${what}` });

/** An integer >= 1. */
export const positiveInt = () => z.int(expect('a positive integer')).min(1, expect('a positive integer'));

/** An integer >= 0. */
export const nonNegativeInt = () => z.int(expect('a non-negative integer')).min(0, expect('a non-negative integer'));

/** An integer >= 1, or -1 meaning "off" (verl's save_freq/test_freq/top_k convention). */
export const intOrOff = () => z.int(expect('a positive integer or -1 (off)')).refine((v) => v === -1 || v >= 1, expect('a positive integer or -1 (off)'));

/** A finite number. */
export const finite = () => z.number(expect('a number')).refine(Number.isFinite, expect('a finite number'));

/** A number > 0. */
export const positive = () => z.number(expect('a positive number')).gt(0, expect('a positive number')).refine(Number.isFinite, expect('a finite number'));

/** A number >= 0. */
export const nonNegative = () =>
  z.number(expect('a non-negative number')).min(0, expect('a non-negative number')).refine(Number.isFinite, expect('a finite number'));

/** A number in [lo, hi]. */
export const between = (lo: number, hi: number) =>
  z
    .number(expect(`a number between ${lo} and ${hi}`))
    .min(lo, expect(`a number between ${lo} and ${hi}`))
    .max(hi, expect(`a number between ${lo} and ${hi}`));

/** true or false. */
export const bool = () => z.boolean(expect('true or false'));

/** A non-empty string. */
export const text = () => z.string(expect('a non-empty string')).min(1, expect('a non-empty string'));

/** One of a fixed set of strings. */
export const oneOf = <const T extends string>(values: readonly T[]) =>
  z.enum(values as unknown as readonly [T, ...T[]], expect(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`));

/** A path or a list of paths (verl accepts both for `data.train_files`); always a list after parsing. */
export const pathList = () =>
  z.union([text(), z.array(text()).min(1)], expect('a file path or a non-empty list of file paths')).transform((v) => (typeof v === 'string' ? [v] : v));

/** A NATS subject: dot-separated tokens without spaces or wildcards. */
export const subject = () =>
  z.string(expect('a NATS subject')).regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, expect('a NATS subject like "reward.rules.score"'));

/** A tokenizer: "char", "byte", or a path (a tokenizer.json file, or a directory with Hugging Face tokenizer files). */
export const tokenizerKey = () =>
  z.string(expect('"char", "byte", a tokenizer.json path or a model directory')).min(1, expect('"char", "byte", a tokenizer.json path or a model directory'));

/**
 * A KL estimator name as verl's kl_penalty takes it. "full" needs whole-vocabulary
 * log-probs and straight-through names ("k3+", "low_var_kl+", ...) reach
 * kl_penalty_forward with the "+" still on at verl b178a3c, which raises
 * NotImplementedError for both: they are refused here, before a job starts.
 */
export const klEstimator = <const T extends string>(names: readonly T[]) => {
  const plain: string[] = names.filter((k) => !k.startsWith('full') && !k.endsWith('+'));
  return z
    .string(expect(`one of ${plain.map((v) => JSON.stringify(v)).join(', ')}`))
    .superRefine((v, ctx) => {
      if (plain.includes(v)) return;
      const why =
        v.endsWith('+') && plain.includes(v.slice(0, -1))
          ? `a straight-through name: verl b178a3c passes "${v}" to kl_penalty_forward unchanged and raises NotImplementedError; use "${v.slice(0, -1)}"`
          : v.startsWith('full')
            ? 'needs whole-vocabulary log-probs: verl raises NotImplementedError for it too'
            : `${EXPECTED}one of ${plain.map((p) => JSON.stringify(p)).join(', ')}`;
      ctx.addIssue({ code: 'custom', message: why });
    })
    .transform((v) => v as T);
};
