// Closed by default, open on purpose: a service listens on loopback unless its
// HOST says otherwise, and one that listens beyond loopback either requires a
// bearer token or was told explicitly (ALLOW_UNAUTHENTICATED) to run without.
import { isIP } from 'node:net';
import { AppError, ErrorCode } from '../errors.ts';

/** The settings that decide who can call the HTTP edge. */
export interface ExposureSettings {
  HOST: string;
  AUTH_TOKEN?: string | undefined;
  ALLOW_UNAUTHENTICATED: boolean;
}

/** How the HTTP edge is exposed: `warning` is set only for a service anyone on the network can call. */
export interface Exposure {
  loopbackOnly: boolean;
  authenticated: boolean;
  warning?: string;
}

/** Whether `host` accepts connections from this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || /^(0+:){7}0*1$/.test(h);
  return false;
}

/**
 * Decides the exposure of a service about to listen, refusing (InvalidConfig)
 * a bind beyond loopback with neither `AUTH_TOKEN` nor `ALLOW_UNAUTHENTICATED=true`.
 */
export function checkExposure(s: ExposureSettings): Exposure {
  const loopbackOnly = isLoopbackHost(s.HOST);
  const authenticated = s.AUTH_TOKEN !== undefined;
  if (loopbackOnly || authenticated) return { loopbackOnly, authenticated };
  if (!s.ALLOW_UNAUTHENTICATED) {
    throw new AppError(
      ErrorCode.InvalidConfig,
      `HOST=${s.HOST} listens beyond loopback but AUTH_TOKEN is not set: set AUTH_TOKEN (clients send "Authorization: Bearer <token>"), ` +
        'bind HOST=127.0.0.1, or set ALLOW_UNAUTHENTICATED=true to accept calls from anyone who can reach the port',
      { details: { problems: ['AUTH_TOKEN: required when HOST is not a loopback address'] } },
    );
  }
  return {
    loopbackOnly,
    authenticated,
    warning: `UNAUTHENTICATED: HTTP listens on ${s.HOST} without AUTH_TOKEN (ALLOW_UNAUTHENTICATED=true); anyone who can reach the port can call every route`,
  };
}
