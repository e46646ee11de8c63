import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

/** A listening HTTP server and how to close it gracefully. */
export interface HttpServer {
  readonly port: number;
  /** Stops accepting connections, lets in-flight requests finish, then resolves. */
  close(graceMs: number): Promise<void>;
}

type FetchHandler = Parameters<typeof serve>[0]['fetch'];

/** Starts `app` on `host:port` (port 0 picks a free one) and resolves once listening. */
export function startHttpServer(app: { fetch: FetchHandler }, host: string, port: number): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server: ServerType = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      resolve({ port: info.port, close: (graceMs) => closeServer(server, graceMs) });
    });
    server.once('error', reject);
  });
}

function closeServer(server: ServerType, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      resolve();
    }, graceMs);
    force.unref();
    // A keep-alive connection whose response finishes after close() would otherwise
    // linger for the whole keep-alive timeout; close such connections as they go idle.
    const reap = setInterval(() => {
      if ('closeIdleConnections' in server) server.closeIdleConnections();
    }, 50);
    reap.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(reap);
      resolve();
    });
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  });
}
