// `/docs` of a real service process in headless Chromium with the network
// blocked: every asset comes from the service itself (swagger-ui-dist), no
// request leaves the host, and the page lists every documented operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, startChromium, type Browser } from './support/chromium.ts';
import { startService, type ServiceProcess } from './support/processes.ts';

const CHROMIUM = findChromium();
if (CHROMIUM === undefined) console.warn('docs-offline: skipped, no Chromium (apt-get install chromium, or `make system-deps`)');

/**
 * Nothing but loopback resolves, and anything not bypassed as loopback goes to
 * a proxy on a closed port, so even an address literal cannot leave the host.
 */
const OFFLINE = ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--proxy-server=http://127.0.0.1:9'];

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

let svc: ServiceProcess;
let browser: Browser;

describe.skipIf(CHROMIUM === undefined)('/docs renders offline in headless Chromium', () => {
  beforeAll(async () => {
    // With a bearer token set: the docs page and its assets stay public.
    svc = await startService('reward-rules', { NATS_ENABLED: 'false', SCORE_WORKERS: '1', AUTH_TOKEN: 's3cret' });
    browser = await startChromium(CHROMIUM!, OFFLINE);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('loads only from the service and lists every operation with its operationId', async () => {
    const doc = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const expected: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method, path, operationId: op.operationId })),
    );
    expect(expected.length).toBeGreaterThanOrEqual(6);

    const { page } = browser;
    await page.send('Network.enable');
    await page.send('Page.enable');
    await page.send('Page.navigate', { url: `${svc.baseUrl}/docs` });

    const readOps = () =>
      page.evaluate<Operation[]>(`[...document.querySelectorAll('.opblock')].map((el) => ({
        method: (el.querySelector('.opblock-summary-method')?.textContent ?? '').toLowerCase(),
        path: el.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        operationId: el.querySelector('.opblock-summary-operation-id')?.textContent ?? '',
      }))`);
    let rendered: Operation[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      rendered = await readOps();
      if (rendered.length >= expected.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const sortOps = (ops: Operation[]) => [...ops].sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
    expect(sortOps(rendered)).toEqual(sortOps(expected));
    expect(await page.evaluate<string>('document.title')).toBe('reward-rules API');

    // Every request the page made went to the service; none failed.
    const requested = page.events.filter((e) => e.method === 'Network.requestWillBeSent').map((e) => (e.params.request as { url: string }).url);
    const origin = new URL(svc.baseUrl).origin;
    expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
    expect(requested).toEqual(
      expect.arrayContaining([
        `${origin}/docs`,
        `${origin}/docs/assets/swagger-ui-bundle.js`,
        `${origin}/docs/assets/swagger-ui.css`,
        `${origin}/openapi.json`,
      ]),
    );
    const failed = page.events.filter((e) => e.method === 'Network.loadingFailed').map((e) => e.params);
    expect(failed).toEqual([]);
  });
});
