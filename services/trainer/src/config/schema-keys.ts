import { z } from 'zod';

// Walks a zod schema to list the keys an object accepts, so an unknown key can
// be answered with "did you mean ...?" computed from the schema itself.

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault || s instanceof z.ZodPrefault) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      s = s.in as z.ZodType;
    } else {
      return s;
    }
  }
}

/** The keys of the object schema at `path`, or undefined when `path` is not an object with fixed keys. */
export function knownKeysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let s = unwrap(root);
  for (const key of path) {
    if (!(s instanceof z.ZodObject)) return undefined;
    const next = (s.shape as Record<string, z.ZodType>)[String(key)];
    if (next === undefined) return undefined;
    s = unwrap(next);
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape) : undefined;
}

/** Every dotted key path the schema knows (objects and leaves), e.g. `actor_rollout_ref.actor.optim.lr`. */
export function allKeyPaths(root: z.ZodType, prefix: readonly string[] = []): string[][] {
  const s = unwrap(root);
  if (!(s instanceof z.ZodObject)) return [];
  const out: string[][] = [];
  for (const [key, child] of Object.entries(s.shape as Record<string, z.ZodType>)) {
    const path = [...prefix, key];
    out.push(path, ...allKeyPaths(child, path));
  }
  return out;
}
