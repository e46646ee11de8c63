import { AppError, ErrorCode, getOwn, isPrototypeKey, setOwn } from '@rl/service-kit';
import { parseDocument } from 'yaml';

/** One parsed `--set` override. */
export interface Override {
  /** Key path, e.g. ['data', 'train_batch_size']. */
  path: string[];
  /** `set` (`a.b=v`, `+a.b=v`, `++a.b=v`) or `delete` (`~a.b`). */
  op: 'set' | 'delete';
  value: unknown;
  /** The override as given, for messages. */
  text: string;
}

const SEGMENT = /^[^.=\s]+$/;

function parseValue(raw: string, text: string): unknown {
  const firstLine = (message: string) => message.split('\n')[0];
  try {
    // YAML scalars give Hydra-like typing: 8 → number, true → boolean, [a, b] → list, "8" → string.
    // Warnings (an unknown tag) are the client's mistake too: refused here, not printed by the server.
    const doc = parseDocument(raw, { logLevel: 'silent' });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem !== undefined) throw problem;
    return doc.toJS();
  } catch (err) {
    throw new Error(`${text}: value is not valid YAML (${err instanceof Error ? firstLine(err.message) : String(err)})`);
  }
}

function parseOne(text: string): Override {
  const deleting = text.startsWith('~');
  const body = text.replace(/^(\+\+|\+|~)/, '');
  const eq = body.indexOf('=');
  if (!deleting && eq < 0) throw new Error(`${text}: expected key.path=value`);
  const key = eq < 0 ? body : body.slice(0, eq);
  const path = key.split('.');
  if (key === '' || !path.every((s) => SEGMENT.test(s))) throw new Error(`${text}: "${key}" is not a dotted key path`);
  // Walking `a.__proto__.b` would write into Object.prototype for the whole process.
  const bad = path.findIndex(isPrototypeKey);
  if (bad >= 0) throw new Error(`${text}: key "${path[bad]}" (at ${path.slice(0, bad + 1).join('.')}) is not allowed in a config path`);
  if (deleting) return { path, op: 'delete', value: undefined, text };
  return { path, op: 'set', value: parseValue(body.slice(eq + 1), text), text };
}

/** Parses Hydra-style overrides, reporting every malformed one at once. */
export function parseOverrides(texts: readonly string[]): Override[] {
  const out: Override[] = [];
  const problems: string[] = [];
  for (const text of texts) {
    try {
      out.push(parseOne(text));
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (problems.length > 0) {
    throw new AppError(ErrorCode.ValidationFailed, `invalid --set override: ${problems.join('; ')}`, { details: { problems } });
  }
  return out;
}

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Applies overrides to a copy of `config` (later ones win), creating missing
 * mappings on the way. Validation happens afterwards, on the result. Only own
 * properties are read and written, so no key reaches a prototype.
 */
export function applyOverrides(config: unknown, overrides: readonly Override[]): Record<string, unknown> {
  const root: Record<string, unknown> = isMapping(config) ? structuredClone(config) : {};
  const problems: string[] = [];
  for (const o of overrides) {
    let node = root;
    let ok = true;
    for (let i = 0; i < o.path.length - 1 && ok; i++) {
      const key = o.path[i] as string;
      const next = getOwn(node, key);
      if (next === undefined || next === null) {
        if (o.op === 'delete') ok = false;
        else {
          const created: Record<string, unknown> = {};
          setOwn(node, key, created);
          node = created;
        }
      } else if (isMapping(next)) {
        node = next;
      } else {
        problems.push(`${o.text}: ${o.path.slice(0, i + 1).join('.')} is not a mapping`);
        ok = false;
      }
    }
    if (!ok) continue;
    const leaf = o.path[o.path.length - 1] as string;
    if (o.op === 'delete') delete node[leaf];
    else setOwn(node, leaf, o.value);
  }
  if (problems.length > 0) {
    throw new AppError(ErrorCode.ValidationFailed, `invalid --set override: ${problems.join('; ')}`, { details: { problems } });
  }
  return root;
}
