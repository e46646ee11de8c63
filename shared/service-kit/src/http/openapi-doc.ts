import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { RouteConfig } from '@hono/zod-openapi';
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';

/** Title, version and description of a service's OpenAPI document. */
export interface DocInfo {
  service: string;
  version: string;
  description: string;
  /** The service's default port (its package.json `rl.port`, what `make up` uses): the document's local server. */
  defaultPort?: number;
}

/** Name of the bearer-token security scheme (`AUTH_TOKEN`). */
const BEARER_SCHEME = 'bearerAuth';

/** The licence the documents state: the repository's (`LICENSE`), as an SPDX identifier. */
const LICENSE = { name: 'Apache-2.0', identifier: 'Apache-2.0' } as const;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** How a document states the bearer token. */
export type DocAuth =
  /** A document of the service in general (`make openapi`): the token is needed only when the service runs with `AUTH_TOKEN`. */
  | 'optional'
  /** A running service with `AUTH_TOKEN` set: every documented operation needs it. */
  | 'required';

/** What {@link finishOpenApiDocument} adds besides the routes. */
export interface FinishOptions {
  defaultPort?: number | undefined;
  auth: DocAuth;
  /** Put the relative server `/` (the host serving the document) first, as a running service's `/openapi.json` does. @default false */
  relativeServerFirst?: boolean;
}

type Json = Record<string, unknown>;

/**
 * Makes a generated document client-ready (Redocly's recommended rules):
 * `servers` (the default local URL and the serving host), the licence, the
 * bearer scheme with its security requirement, and a 401 problem response on
 * every operation that lacks one (the bearer check runs before any route).
 */
export function finishOpenApiDocument(doc: object, o: FinishOptions): object {
  const d = structuredClone(doc) as Json;
  const info = (d.info ?? {}) as Json;
  d.info = { ...info, license: LICENSE };
  const local =
    o.defaultPort === undefined ? [] : [{ url: `http://127.0.0.1:${o.defaultPort}`, description: 'default local address (as `make up` starts it)' }];
  const relative = [{ url: '/', description: 'the host serving this document' }];
  d.servers = o.relativeServerFirst === true ? [...relative, ...local] : [...local, ...relative];
  d.security = o.auth === 'required' ? [{ [BEARER_SCHEME]: [] }] : [{}, { [BEARER_SCHEME]: [] }];
  const components = (d.components ?? {}) as Json;
  d.components = {
    ...components,
    securitySchemes: {
      ...(components.securitySchemes as Json | undefined),
      [BEARER_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        description: 'The service’s `AUTH_TOKEN`, as `Authorization: Bearer <token>`. A service started without `AUTH_TOKEN` takes requests without it.',
      },
    },
  };
  const problem = { $ref: '#/components/schemas/Problem' };
  let needsProblem = false;
  for (const item of Object.values((d.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      const responses = (op.responses ?? {}) as Json;
      if (responses['401'] === undefined) {
        responses['401'] = { description: 'Missing or wrong bearer token', content: { 'application/problem+json': { schema: problem } } };
        needsProblem = true;
      }
      op.responses = responses;
    }
  }
  const schemas = ((d.components as Json).schemas ?? {}) as Json;
  if (needsProblem && schemas.Problem === undefined) throw new Error('a route documents no Problem schema; add one to a route’s error responses');
  const { openapi, info: finalInfo, servers, security, ...rest } = d;
  return { openapi, info: finalInfo, servers, security, ...rest };
}

/** The default port a service's package.json declares as `rl.port` (`make up` uses it). */
export function packageDefaultPort(packageJson: URL): number {
  const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { rl?: { port?: unknown } };
  const port = pkg.rl?.port;
  if (typeof port !== 'number') throw new Error(`${packageJson.pathname} has no numeric rl.port`);
  return port;
}

/**
 * Builds a service's OpenAPI 3.1 document from its route definitions alone (no
 * handlers, no I/O), so `make openapi` and the drift test need nothing running.
 */
export function buildOpenApiDocument(routes: ReadonlyArray<RouteConfig>, info: DocInfo): object {
  const registry = new OpenAPIRegistry();
  for (const r of routes) registry.registerPath(r);
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: info.service, version: info.version, description: info.description },
  });
  return finishOpenApiDocument(doc, { defaultPort: info.defaultPort, auth: 'optional' });
}

/** Serialises a document the way it is checked in under `openapi/`. */
export function toYaml(doc: object): string {
  return `# Generated by \`make openapi\` from the zod route definitions. Do not edit.\n${stringify(doc, { lineWidth: 0 })}`;
}
