// One NATS request on its own inbox subscription, so that it can be ended for
// real (unsubscribed) when its connection drops. nats.js keeps a request that
// was in flight across a disconnect waiting until its timeout, yet the request
// or its reply is then lost: what a client publishes while disconnected is
// dropped when it reconnects (nats.js resets its outbound buffer on every
// dial), and a reply the responder sent while the server was down goes nowhere.
// With deadlines of minutes (a policy update, a rollout) the caller would hang
// that long. Here it learns within one reconnect attempt, with a retryable
// `unavailable`, and decides whether to ask again:
// - a flush (PING/PONG) right after the publish proves the server got the
//   request; nats.js rejects it when the link drops first;
// - after that, a `disconnect` status means the reply may be lost.
// A server that refuses this user the subject (or its own inbox) says so at
// once; that is a permanent `unauthorized`, not a timeout minutes later.
import { PermissionViolationError, TimeoutError, type Msg, type MsgHdrs, type NatsConnection, type Status, type Subscription } from '@nats-io/transport-node';
import { AppError, ErrorCode } from '../errors.ts';
import { inboxOf } from './connect.ts';

/** Options of {@link requestOnce}. */
export interface RequestOnceOptions {
  /** Deadline of the reply. */
  timeoutMs: number;
  headers?: MsgHdrs;
  /** Progress messages the responder sends before its reply ({@link PROGRESS_HEADER}); without it, none is asked for. */
  onProgress?: (msg: Msg) => void;
}

/** Marks a message sent to a request's reply subject before the reply: progress, not the answer. A request carries it to say it takes them. */
export const PROGRESS_HEADER = 'Rl-Progress';

/** Ends a status listener: nats.js hands out a QueuedIterator whose `stop()` removes it from the connection. */
function stopListening(status: AsyncIterable<Status>): void {
  if ('stop' in status && typeof status.stop === 'function') status.stop();
}

/**
 * Publishes `data` on `subject` and resolves with the first reply. Rejects with
 * `no_responders` when nobody listens, `timeout` after `timeoutMs`, and
 * `unavailable` (retryable) as soon as the connection to the server drops
 * before the server has the request or while the reply is awaited.
 */
export function requestOnce(nc: NatsConnection, subject: string, data: Uint8Array, opts: RequestOnceOptions): Promise<Msg> {
  const { timeoutMs, headers, onProgress } = opts;
  const { promise, resolve, reject } = Promise.withResolvers<Msg>();
  const status = nc.status();
  let sub: Subscription | undefined;
  let settled = false;
  // With progress messages the subscription's own timeout (time to the first message) would end at the first one.
  const deadline =
    onProgress === undefined
      ? undefined
      : setTimeout(() => settle(new AppError(ErrorCode.Timeout, `no reply on ${subject} within ${timeoutMs} ms`, { retryable: true })), timeoutMs);
  const settle = (err: AppError | null, msg?: Msg) => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline);
    sub?.unsubscribe();
    stopListening(status);
    if (err !== null) reject(err);
    else resolve(msg!);
  };
  const refused = (e: PermissionViolationError) =>
    new AppError(
      ErrorCode.Unauthorized,
      `NATS refuses this connection's user to ${e.operation === 'publish' ? 'publish to' : 'subscribe to'} ${e.subject} (request on ${subject}); see its permissions`,
      {
        cause: e,
      },
    );
  void (async () => {
    for await (const s of status) {
      if (s.type === 'error' && s.error instanceof PermissionViolationError && s.error.operation === 'publish' && s.error.subject === subject) {
        settle(refused(s.error));
      } else if (s.type === 'disconnect') {
        settle(
          new AppError(ErrorCode.Unavailable, `connection to NATS lost while waiting for a reply on ${subject}`, {
            retryable: true,
            details: { reason: 'disconnected' },
          }),
        );
      }
    }
  })();
  const inbox = inboxOf(nc);
  try {
    sub = nc.subscribe(inbox, {
      ...(onProgress === undefined ? { max: 1, timeout: timeoutMs } : {}),
      callback: (err, msg) => {
        if (err instanceof PermissionViolationError) {
          settle(refused(err));
        } else if (err instanceof TimeoutError) {
          settle(new AppError(ErrorCode.Timeout, `no reply on ${subject} within ${timeoutMs} ms`, { retryable: true, cause: err }));
        } else if (err !== null) {
          settle(new AppError(ErrorCode.Unavailable, `request on ${subject} failed: ${String(err)}`, { retryable: true, cause: err }));
        } else if (onProgress !== undefined && msg.headers?.get(PROGRESS_HEADER) === '1') {
          if (!settled) onProgress(msg);
        } else if (msg.data.length === 0 && msg.headers?.code === 503) {
          // The server's "no responders" status (nats.js's own request does the same check).
          settle(new AppError(ErrorCode.NoResponders, `no service is listening on ${subject}`, { retryable: true }));
        } else {
          settle(null, msg);
        }
      },
    });
    nc.publish(subject, data, { reply: inbox, ...(headers !== undefined && { headers }) });
    nc.flush().catch((err: unknown) => {
      settle(
        new AppError(ErrorCode.Unavailable, `connection to NATS lost before the request on ${subject} reached the server`, {
          retryable: true,
          cause: err,
          details: { reason: 'disconnected' },
        }),
      );
    });
  } catch (err) {
    settle(new AppError(ErrorCode.Unavailable, `request on ${subject} failed: ${String(err)}`, { retryable: true, cause: err }));
  }
  return promise;
}
