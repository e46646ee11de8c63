// Headless Chromium (Debian's `chromium` package) driven over the DevTools
// protocol with node's built-in WebSocket: no puppeteer, no downloaded browser.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, waitForLine, type Running } from './processes.ts';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium binary, or undefined when none is installed (`make system-deps` installs Debian's). */
export function findChromium(): string | undefined {
  return CANDIDATES.find((p) => existsSync(p));
}

/** One DevTools event as the browser sends it. */
export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
}

/** A page of a headless browser, and the DevTools events it has sent. */
export interface Page {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Evaluates `expression` in the page and returns its (JSON) value. */
  evaluate<T>(expression: string): Promise<T>;
  readonly events: CdpEvent[];
}

/** A headless browser with one page; `close()` kills it and removes its profile. */
export interface Browser {
  page: Page;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium with extra `flags` (e.g. `--host-resolver-rules=...` to block the network)
 * and attaches to its first page.
 */
export async function startChromium(binary: string, flags: readonly string[]): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'rl-chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--remote-debugging-port=0',
    `--user-data-dir=${profile}`,
    ...flags,
    'about:blank',
  ];
  const proc: Running = launch(binary, args, { cwd: profile });
  const close = async () => {
    await proc.stop();
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const m = await waitForLine(proc, /DevTools listening on (ws:\/\/\S+)/, 30_000);
    const httpBase = new URL(m[1]!.replace(/^ws:/, 'http:')).origin;
    const targets = (await (await fetch(`${httpBase}/json/list`)).json()) as Array<{ type: string; webSocketDebuggerUrl: string }>;
    const target = targets.find((t) => t.type === 'page');
    if (target === undefined) throw new Error(`no page target: ${JSON.stringify(targets)}`);
    const page = await connect(target.webSocketDebuggerUrl);
    return {
      page,
      close: async () => {
        page.close();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function connect(url: string): Promise<Page & { close(): void }> {
  const ws = new WebSocket(url);
  await new Promise<void>((res, rej) => {
    ws.addEventListener('open', () => res(), { once: true });
    ws.addEventListener('error', () => rej(new Error(`cannot connect to ${url}`)), { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, { res: (v: Record<string, unknown>) => void; rej: (e: Error) => void }>();
  const events: CdpEvent[] = [];
  ws.addEventListener('message', (e) => {
    const msg = JSON.parse(String(e.data)) as {
      id?: number;
      result?: Record<string, unknown>;
      error?: { message: string };
      method?: string;
      params?: Record<string, unknown>;
    };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.rej(new Error(msg.error.message));
      else p?.res(msg.result ?? {});
    } else if (msg.method !== undefined) {
      events.push({ method: msg.method, params: msg.params ?? {} });
    }
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((res, rej) => {
      const id = nextId++;
      pending.set(id, { res, rej });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    send,
    events,
    evaluate: async <T>(expression: string) => {
      const r = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as {
        result: { value: T };
        exceptionDetails?: unknown;
      };
      if (r.exceptionDetails !== undefined) throw new Error(`page threw: ${JSON.stringify(r.exceptionDetails)}`);
      return r.result.value;
    },
    close: () => ws.close(),
  };
}
