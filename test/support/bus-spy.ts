// A test's eye on the bus: a plain (non-queue) subscription receives a copy of
// every request sent to a queue-group service, so a test can act at the exact
// moment a given request is on its way (a step's rollout, its update) instead
// of guessing with sleeps.
import type { NatsConnection } from '@nats-io/transport-node';
import { connectTestClient } from './nats-client.ts';

/** A gate that opens on the first matching request. */
export interface MessageGate {
  /** Resolves with the matching message's JSON body; rejects after `timeoutMs`. */
  readonly seen: Promise<unknown>;
  close(): Promise<void>;
}

const decoder = new TextDecoder();

/** Parses a message body as JSON, or returns undefined (e.g. the first chunk of a chunked payload). */
function parseBody(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
}

/**
 * Connects to `url` and opens a gate on the first message on `subject` whose
 * body satisfies `match`. Resolves once the subscription is registered with the
 * server, so no request sent afterwards is missed.
 */
export async function gateOnRequest(url: string, subject: string, match: (body: unknown) => boolean, timeoutMs: number): Promise<MessageGate> {
  const nc: NatsConnection = await connectTestClient(url);
  const { promise, resolve, reject } = Promise.withResolvers<unknown>();
  const timer = setTimeout(() => reject(new Error(`no matching request on ${subject} within ${timeoutMs} ms`)), timeoutMs);
  nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err !== null) return;
      const body = parseBody(msg.data);
      if (!match(body)) return;
      clearTimeout(timer);
      resolve(body);
    },
  });
  await nc.flush();
  return {
    seen: promise,
    close: async () => {
      clearTimeout(timer);
      await nc.close();
    },
  };
}

/** A spy on every request to one subject that can wait for the first one the server routes after a point in time. */
export interface RequestWatch {
  /**
   * Resolves with the body of the first request on the subject that the server
   * routes after this call (a flush marks the point: whatever the server sent
   * before it is ignored); rejects after `timeoutMs`.
   */
  nextRouted(timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects to `url` and watches every request on `subject` (registered with the server before it resolves). */
export async function watchRequests(url: string, subject: string): Promise<RequestWatch> {
  const nc: NatsConnection = await connectTestClient(url);
  let waiter: ((body: unknown) => void) | undefined;
  // Callback subscriptions run while the connection parses its input, so every
  // message the server sent before a flush's reply has been handled when the flush resolves.
  nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err === null) waiter?.(parseBody(msg.data));
    },
  });
  await nc.flush();
  return {
    nextRouted: async (timeoutMs) => {
      await nc.flush();
      const { promise, resolve, reject } = Promise.withResolvers<unknown>();
      const timer = setTimeout(() => reject(new Error(`no request on ${subject} within ${timeoutMs} ms`)), timeoutMs);
      waiter = (body) => {
        waiter = undefined;
        clearTimeout(timer);
        resolve(body);
      };
      return promise;
    },
    close: () => nc.close(),
  };
}
