import { DEFAULT_ROUTE_KEY } from './default-routes.ts';

/** A compiled route table: exact names, then prefixes (longest first), then the default. */
export interface RouteTable {
  readonly exact: ReadonlyMap<string, string>;
  readonly prefixes: ReadonlyArray<readonly [prefix: string, subject: string]>;
  readonly fallback: string | undefined;
}

/** Compiles `{data_source | prefix* | default: subject}` entries. */
export function compileRoutes(routes: Readonly<Record<string, string>>): RouteTable {
  const exact = new Map<string, string>();
  const prefixes: Array<[string, string]> = [];
  let fallback: string | undefined;
  for (const [key, subject] of Object.entries(routes)) {
    if (key === DEFAULT_ROUTE_KEY) fallback = subject;
    else if (key.endsWith('*')) prefixes.push([key.slice(0, -1), subject]);
    else exact.set(key, subject);
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  return { exact, prefixes, fallback };
}

/** The subject scoring `dataSource`, or undefined when nothing (not even `default`) matches. */
export function resolveRoute(table: RouteTable, dataSource: string): string | undefined {
  const exact = table.exact.get(dataSource);
  if (exact !== undefined) return exact;
  for (const [prefix, subject] of table.prefixes) if (dataSource.startsWith(prefix)) return subject;
  return table.fallback;
}
