import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../testing/index.ts';
import { buildOpenApiDocument } from './openapi-doc.ts';
import { problemDoc } from './problem.ts';

const pingRoute = createRoute({
  method: 'get',
  path: '/v1/ping',
  operationId: 'ping',
  summary: 'ping',
  responses: {
    200: { description: 'pong', content: { 'application/json': { schema: z.literal('pong') } } },
    400: problemDoc('bad'),
  },
});

function appWithPing(authToken?: string) {
  const app = createTestApp({ authToken, defaultPort: 8199 });
  app.openapi(pingRoute, (c) => c.json('pong' as const, 200));
  return app;
}

describe('/docs', () => {
  it('serves Swagger UI and its assets from the service, public even with a bearer token', async () => {
    const app = appWithPing('s3cret');
    const page = await app.request('/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(['docs/assets/favicon-32x32.png', 'docs/assets/swagger-ui.css', 'docs/assets/swagger-ui-bundle.js', 'docs/assets/init.js']);
    for (const asset of assets) {
      const res = await app.request(`/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    expect(await (await app.request('/docs/assets/init.js')).text()).toContain('validatorUrl: null');
    expect((await app.request('/docs/assets/package.json')).status).toBe(404);
    expect((await app.request('/v1/ping')).status).toBe(401);
  });
});

describe('OpenAPI documents', () => {
  it('the generated document: local and relative servers, licence, optional bearer scheme, a 401 on every operation', () => {
    const doc = buildOpenApiDocument([pingRoute], { service: 'svc', version: '1', description: 'd', defaultPort: 8199 }) as Record<string, unknown>;
    expect(Object.keys(doc).slice(0, 4)).toEqual(['openapi', 'info', 'servers', 'security']);
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:8199' }), expect.objectContaining({ url: '/' })]);
    expect(doc.security).toEqual([{}, { bearerAuth: [] }]);
    expect((doc.info as { license: unknown }).license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(doc).toMatchObject({ components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } } });
    const responses = (doc.paths as Record<string, { get: { operationId: string; responses: Record<string, unknown> } }>)['/v1/ping']!.get;
    expect(responses.operationId).toBe('ping');
    expect(Object.keys(responses.responses)).toEqual(['200', '400', '401']);
  });

  it('a running service’s /openapi.json: the serving host first; the token required only when AUTH_TOKEN is set', async () => {
    const open = (await (await appWithPing().request('/openapi.json')).json()) as { servers: Array<{ url: string }>; security: unknown };
    expect(open.servers.map((s) => s.url)).toEqual(['/', 'http://127.0.0.1:8199']);
    expect(open.security).toEqual([{}, { bearerAuth: [] }]);
    const secured = (await (await appWithPing('s3cret').request('/openapi.json')).json()) as { security: unknown };
    expect(secured.security).toEqual([{ bearerAuth: [] }]);
  });
});
