// A stand-in for an LLM judge's OpenAI-compatible server over real HTTP:
// `POST /v1/chat/completions` answers as scripted (a text, an HTTP error with
// Retry-After, a body that is not JSON, or an answer held back until the test
// releases it), counts requests and the most in flight at once, and can enforce
// a requests-per-minute limit of its own with 429s as hosted APIs do.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer. */
export type JudgeReply =
  /** A chat completion whose message content is `text`. */
  | { text: string }
  /** An HTTP error; `retryAfter` is sent as the Retry-After header. */
  | { status: number; body?: string; retryAfter?: string }
  /** HTTP 200 with this body as it is (garbage, not a completion). */
  | { raw: string }
  /** No answer until {@link FakeJudgeServer.release} (a late answer) or close. */
  | { hold: true };

/** One request as the server received it. */
export interface JudgeRequest {
  body: Record<string, unknown>;
  authorization: string | undefined;
  /** The text of the last message (the rendered prompt). */
  prompt: string;
}

/** Options of {@link startFakeJudgeServer}. */
export interface FakeJudgeOptions {
  /** Answers a request when no queued reply is left. @default `{ text: 'Score: 5' }` */
  respond?: (req: JudgeRequest) => JudgeReply;
  /** Enforce this many requests per minute (a window of the last 60 s); above it, 429 with Retry-After. */
  maxRpm?: number;
  /** The time the rate limit reads. @default Date.now */
  now?: () => number;
  /** Answer each admitted request this long after it arrived, like a model that takes its time (benches only: tests hold answers instead). @default 0 */
  latencyMs?: number;
}

export interface FakeJudgeServer {
  /** With `/v1`, as a judge's base_url takes it. */
  baseUrl: string;
  /** Chat requests in arrival order (429s of the server's own limit included). */
  requests: JudgeRequest[];
  /** 429s the server's own `maxRpm` sent. */
  rateLimited: number;
  /** The most chat requests in flight at once. */
  peakInFlight: number;
  /** Answers the next requests with these, in order, before `respond`. */
  queue(...replies: JudgeReply[]): void;
  /** Resolves once `n` chat requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  /** Answers every held request with `reply`. */
  release(reply: JudgeReply): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, reply: Exclude<JudgeReply, { hold: true }>, model: unknown): void {
  if ('text' in reply) {
    const body = {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  } else if ('raw' in reply) {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(reply.raw);
  } else {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
    res.writeHead(reply.status, headers).end(reply.body ?? JSON.stringify({ error: { message: `fake error ${reply.status}`, code: reply.status } }));
  }
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** Starts the fake on 127.0.0.1 (a free port). */
export async function startFakeJudgeServer(options: FakeJudgeOptions = {}): Promise<FakeJudgeServer> {
  const { respond = () => ({ text: 'Score: 5' }), maxRpm, now = Date.now, latencyMs = 0 } = options;
  const queued: JudgeReply[] = [];
  const held: Array<{ res: ServerResponse; model: unknown }> = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const accepted: number[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;

  const fake: FakeJudgeServer = {
    baseUrl: '',
    requests: [],
    rateLimited: 0,
    peakInFlight: 0,
    queue: (...replies) => void queued.push(...replies),
    waitForRequests: (n) => (fake.requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    release(reply) {
      if ('hold' in reply) throw new Error('release with an answer, not another hold');
      for (const h of held.splice(0)) send(h.res, reply, h.model);
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  /** Whether the server's own limit lets one more request in now (a sliding 60 s window). */
  function admit(): boolean {
    if (maxRpm === undefined) return true;
    const t = now();
    while (accepted.length > 0 && (accepted[0] ?? 0) <= t - 60_000) accepted.shift();
    if (accepted.length >= maxRpm) return false;
    accepted.push(t);
    return true;
  }

  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    inFlight++;
    fake.peakInFlight = Math.max(fake.peakInFlight, inFlight);
    // 'finish' comes before the client can read the answer (and send its next request); 'close' alone for a held one dropped.
    let counted = true;
    const done = () => {
      if (counted) inFlight--;
      counted = false;
    };
    res.on('finish', done);
    res.on('close', done);
    void readBody(req).then((body) => {
      const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
      const last = messages.at(-1)?.content;
      const request: JudgeRequest = { body, authorization: req.headers.authorization, prompt: typeof last === 'string' ? last : '' };
      fake.requests.push(request);
      for (const w of waiters.filter((x) => fake.requests.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (!admit()) {
        fake.rateLimited++;
        const oldest = accepted[0] ?? now();
        send(res, { status: 429, retryAfter: String(Math.max(1, Math.ceil((oldest + 60_000 - now()) / 1000))) }, body.model);
        return;
      }
      const reply = queued.shift() ?? respond(request);
      if ('hold' in reply) held.push({ res, model: body.model });
      else if (latencyMs > 0) setTimeout(() => send(res, reply, body.model), latencyMs);
      else send(res, reply, body.model);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
