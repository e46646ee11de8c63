import type { Env, Hono } from 'hono';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The docs page's assets, read once from the `swagger-ui-dist` package and
 * served by the service itself: the page works on a network with no internet
 * access (no CDN, no validator badge, no fonts from elsewhere).
 */
const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;
type AssetName = keyof typeof ASSETS;

/** Path prefix of the docs page's assets (public like `/docs`). */
export const DOCS_ASSETS_PREFIX = '/docs/assets/';

let cache: Map<AssetName, Uint8Array> | undefined;
function assets(): Map<AssetName, Uint8Array> {
  if (cache === undefined) {
    const dir = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
    cache = new Map(Object.keys(ASSETS).map((name) => [name as AssetName, readFileSync(join(dir, name))]));
  }
  return cache;
}

const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/init.js"></script>
</body>
</html>
`;
}

/**
 * Mounts `/docs` (Swagger UI of `/openapi.json`) and its assets under `/docs/assets/`.
 * Every URL in the page is relative to `/docs`, so it also works behind a path prefix.
 */
export function mountDocs<E extends Env>(app: Hono<E>, title: string): void {
  const html = page(title);
  app.get('/docs', (c) => c.html(html));
  app.get(`${DOCS_ASSETS_PREFIX}init.js`, (c) => c.body(INIT_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }));
  app.get(`${DOCS_ASSETS_PREFIX}:name`, (c) => {
    const name = c.req.param('name');
    if (!Object.hasOwn(ASSETS, name)) return c.notFound();
    const body = assets().get(name as AssetName) as Uint8Array;
    return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'content-type': ASSETS[name as AssetName], 'cache-control': 'public, max-age=86400' });
  });
}
