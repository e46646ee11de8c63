import type { z } from 'zod';
import { closestKey } from './closest-key.ts';
import { EXPECTED } from './fields.ts';
import { allKeyPaths, knownKeysAt } from './schema-keys.ts';

/** One bad key of a job config. */
export interface ConfigProblem {
  /** Dotted key path, e.g. `data.train_batch_size`. */
  path: string;
  /** What is wrong, e.g. `expected a positive integer, got "x"`. */
  message: string;
}

const MAX_SHOWN_CHARS = 60;

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key as string];
  }
  return v;
}

/** Renders a config value the way the user wrote it (JSON), cut to a readable length. */
export function showValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS - 3)}...` : text;
}

function dotted(path: readonly PropertyKey[]): string {
  return (
    path
      .map((k) => (typeof k === 'number' ? `[${k}]` : String(k)))
      .join('.')
      .replaceAll('.[', '[') || '(root)'
  );
}

function unknownKey(schema: z.ZodType, parent: readonly PropertyKey[], key: string, everyPath: string[][]): ConfigProblem {
  const path = dotted([...parent, key]);
  const siblings = knownKeysAt(schema, parent) ?? [];
  const typo = closestKey(key, siblings);
  if (typo !== undefined) return { path, message: `unknown key; did you mean ${dotted([...parent, typo])}?` };
  const elsewhere = everyPath.filter((p) => p[p.length - 1] === key).map((p) => p.join('.'));
  if (elsewhere.length > 0) return { path, message: `unknown key here; did you mean ${elsewhere.join(' or ')}?` };
  return { path, message: `unknown key (known keys here: ${siblings.join(', ')})` };
}

function describe(issue: z.core.$ZodIssue, input: unknown): string {
  const value = valueAt(input, issue.path);
  if (value === undefined) {
    return issue.message.startsWith(EXPECTED) ? `missing; ${issue.message}` : issue.message;
  }
  return `${issue.message}, got ${showValue(value)}`;
}

/**
 * Turns zod issues into one problem per bad key: unknown keys get the closest
 * known key as a hint, bad values show what was expected and what was given.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], input: unknown, schema: z.ZodType): ConfigProblem[] {
  const everyPath = allKeyPaths(schema);
  const out: ConfigProblem[] = [];
  const seen = new Set<string>();
  const add = (p: ConfigProblem) => {
    const key = `${p.path}\u0000${p.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(unknownKey(schema, issue.path, key, everyPath));
    } else {
      add({ path: dotted(issue.path), message: describe(issue, input) });
    }
  }
  return out;
}

/** Default wording for issues our field builders do not word themselves (e.g. a section that is not a mapping). */
export function configErrorMap(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    if (issue.expected === 'object') return `${EXPECTED}a mapping of keys to values`;
    if (issue.expected === 'array') return `${EXPECTED}a list`;
    return `${EXPECTED}${issue.expected}`;
  }
  return undefined;
}
