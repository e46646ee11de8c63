// A stand-in for a vLLM server's pooling endpoint over real HTTP: `POST
// /classify` answers `{data: [{probs: [score]}]}` with the score the test's
// `score(input)` computes (the project's own engine on the same model), or a
// scripted HTTP error or held answer; it records every request body. As
// current vLLM does, the one-label score goes through a sigmoid unless the
// request says `use_activation: false` (the deprecated `activation` is not read).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer: an HTTP error, or no answer until close (a time-out). */
export type ClassifyReply = { status: number; body?: string } | { hold: true };

export interface FakeClassifyServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** Request bodies in arrival order. */
  requests: Array<Record<string, unknown>>;
  /** Answers the next requests with these, in order, before `score`. */
  queue(...replies: ClassifyReply[]): void;
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1 (a free port); `score` turns a request's `input` into its score. */
export async function startFakeClassifyServer(score: (input: string) => Promise<number>): Promise<FakeClassifyServer> {
  const queued: ClassifyReply[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  const fake: FakeClassifyServer = {
    origin: '',
    requests: [],
    queue: (...replies) => void queued.push(...replies),
    waitForRequests: (n) => (fake.requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/classify') {
      json(res, 404, { error: 'not found' });
      return;
    }
    void readBody(req).then(async (body) => {
      fake.requests.push(body);
      for (const w of waiters.filter((x) => fake.requests.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const reply = queued.shift();
      if (reply !== undefined && 'hold' in reply) return;
      if (reply !== undefined) {
        json(res, reply.status, reply.body ?? { error: { message: `fake error ${reply.status}` } });
        return;
      }
      if (typeof body.input !== 'string') {
        json(res, 400, { error: { message: 'input: expected a string' } });
        return;
      }
      const logit = await score(body.input);
      const value = body.use_activation === false ? logit : 1 / (1 + Math.exp(-logit));
      json(res, 200, { id: 'classify-fake', object: 'list', model: body.model, data: [{ index: 0, label: 'LABEL_0', probs: [value], num_classes: 1 }] });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
