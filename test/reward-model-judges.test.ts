// LLM judges against a fake judge server over real HTTP: scores, retries with
// Retry-After, deadlines, unparseable answers and garbage as per-item errors,
// the cache, the limits, the judges' metrics, and the example judge files. Time is virtual: waits
// advance a clock the test owns, and a deadline is a signal the test aborts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMetrics, type ServiceMetrics } from '@rl/service-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { ItemOutcome, ModelItem, RewardBackend } from '../services/reward-model/src/core/backend.ts';
import { createJudgeBackends, createJudgeMetrics } from '../services/reward-model/src/judges/index.ts';
import { type FakeJudgeServer, type JudgeReply, type JudgeRequest, startFakeJudgeServer } from './support/fake-judge-server.ts';

const JUDGES_DIR = join(import.meta.dirname, '../services/reward-model/judges');

/** A clock whose sleeps return at once and move its time to their end; its deadlines fire when that time passes them. */
function virtualClock() {
  let now = 0;
  const slept: number[] = [];
  const deadlines: Array<{ at: number; c: AbortController }> = [];
  return {
    slept,
    now: () => now,
    deadline(ms: number): AbortSignal {
      const c = new AbortController();
      deadlines.push({ at: now + ms, c });
      return c.signal;
    },
    clock: {
      now: () => now,
      sleep(ms: number, signal?: AbortSignal) {
        signal?.throwIfAborted();
        slept.push(ms);
        now += ms;
        for (const d of deadlines) if (d.at <= now) d.c.abort(new DOMException('deadline', 'TimeoutError'));
        return Promise.resolve();
      },
    },
  };
}

let servers: FakeJudgeServer[] = [];
let backends: RewardBackend[] = [];
afterEach(async () => {
  await Promise.all(backends.map((b) => b.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  backends = [];
});

async function fakeServer(respond?: (req: JudgeRequest) => JudgeReply, maxRpm?: number, now?: () => number): Promise<FakeJudgeServer> {
  const s = await startFakeJudgeServer({ ...(respond && { respond }), ...(maxRpm !== undefined && { maxRpm }), ...(now && { now }) });
  servers.push(s);
  return s;
}

function judge(yaml: string, env: Record<string, string> = {}, options: Parameters<typeof createJudgeBackends>[2] = {}): RewardBackend {
  const [b] = createJudgeBackends(yaml, env, options);
  if (b === undefined) throw new Error('no judge in the file');
  backends.push(b);
  return b;
}

const item = (response: string, over: Partial<ModelItem> = {}): ModelItem => ({
  dataSource: 'chat',
  messages: [{ role: 'user', content: 'What is 2+2?' }],
  response,
  groundTruth: '4',
  extraInfo: {},
  ...over,
});

const scoreOf = (o: ItemOutcome | undefined) => (o !== undefined && 'score' in o ? o.score : undefined);
const codeOf = (o: ItemOutcome | undefined) => (o !== undefined && 'error' in o ? o.error.code : undefined);
const never = new AbortController().signal;

const patternJudge = (baseUrl: string, more = '') => `
judges:
  quality:
    base_url: ${baseUrl}
    model: judge-model
    api_key_env: JUDGE_KEY
    system: "You grade answers."
    prompt: "Q={{ question }} R={{ response }} REF={{ reference }} SRC={{ data_source }} X={{ extra_info.tag }}"
    sampling: {temperature: 0.2, max_tokens: 64, extra_body: {chat_template_kwargs: {enable_thinking: false}}}
    parser: {type: pattern, pattern: 'Score:\\s*(\\d+)'}
    score_range: [1, 10]
    retries: {max: 3, base_ms: 100}
${more}`;

describe('LLM judge over HTTP', () => {
  it('sends the rendered prompt, sampling and key, and maps the score onto [0, 1]', async () => {
    const server = await fakeServer(() => ({ text: 'Good, Score: 7' }));
    const b = judge(patternJudge(server.baseUrl), { JUDGE_KEY: 'sk-test' });
    expect([b.name, b.kind, b.ready()]).toEqual(['quality', 'judge', true]);
    const [out] = await b.score([item('4', { extraInfo: { tag: 'T1' } })], never);
    expect(scoreOf(out)).toBeCloseTo(6 / 9, 12);
    expect(out?.extra).toMatchObject({ judge: 'quality', judge_score: 7, judge_text: 'Good, Score: 7', cached: false });
    const [req] = server.requests;
    expect(req?.authorization).toBe('Bearer sk-test');
    expect(req?.body).toMatchObject({
      model: 'judge-model',
      temperature: 0.2,
      max_tokens: 64,
      chat_template_kwargs: { enable_thinking: false },
      messages: [
        { role: 'system', content: 'You grade answers.' },
        { role: 'user', content: 'Q=What is 2+2? R=4 REF=4 SRC=chat X=T1' },
      ],
    });
  });

  it('retries 429 and 5xx, waiting at least what Retry-After asks', async () => {
    const server = await fakeServer(() => ({ text: 'Score: 10' }));
    server.queue({ status: 429, retryAfter: '2' }, { status: 503 });
    const v = virtualClock();
    const b = judge(patternJudge(server.baseUrl), { JUDGE_KEY: 'k' }, { clock: v.clock });
    const [out] = await b.score([item('4')], never);
    expect(scoreOf(out)).toBe(1);
    expect(server.requests).toHaveLength(3);
    // After the 429: its Retry-After (2 s) beats the 100 ms backoff; after the 503: the doubled backoff.
    expect(v.slept).toEqual([2000, 200]);
  });

  it('makes each failure its item’s own error, with the judge’s text, and loses nothing else of the batch', async () => {
    const server = await fakeServer((req) => {
      if (req.prompt.includes('R=down')) return { status: 500, body: 'overloaded' };
      if (req.prompt.includes('R=garbage')) return { raw: '<html>not json</html>' };
      if (req.prompt.includes('R=huge')) return { raw: 'x'.repeat(5 * 1024 * 1024) };
      if (req.prompt.includes('R=refused')) return { status: 400, body: '{"error":{"message":"context too long"}}' };
      if (req.prompt.includes('R=chatty')) return { text: 'I think it is a fine answer.' };
      if (req.prompt.includes('R=high')) return { text: 'Score: 11' };
      if (req.prompt.includes('R=think')) return { text: '<think>Maybe Score: 2?</think>\nScore: 9' };
      if (req.prompt.includes('R=cut')) return { text: '<think>Score: 3 would be' };
      return { text: 'Score: 4' };
    });
    const v = virtualClock();
    const b = judge(patternJudge(server.baseUrl, '    cache: {enabled: false}'), { JUDGE_KEY: 'k' }, { clock: v.clock });
    const names = ['ok', 'down', 'garbage', 'refused', 'chatty', 'high', 'think', 'cut', 'huge'];
    const outs = await b.score(
      names.map((n) => item(n)),
      never,
    );
    expect(outs.map((o) => scoreOf(o) ?? codeOf(o))).toEqual([
      3 / 9,
      'unavailable',
      'upstream_error',
      'upstream_error',
      'judge_unparseable',
      'judge_unparseable',
      8 / 9,
      'judge_unparseable',
      'upstream_error',
    ]);
    expect(outs[2]?.extra?.judge_text).toBe('<html>not json</html>');
    expect(outs[3]?.extra?.judge_text).toContain('context too long');
    expect(outs[4]?.extra?.judge_text).toBe('I think it is a fine answer.');
    expect(outs[7]?.extra?.judge_text).toBe('<think>Score: 3 would be');
    // 'down' was tried 1 + 3 times; the 4xx and the garbage are not retried.
    expect(server.requests.filter((r) => r.prompt.includes('R=down'))).toHaveLength(4);
    expect(server.requests.filter((r) => r.prompt.includes('R=refused'))).toHaveLength(1);
  });

  it('ends an item whose answer comes too late with a timeout, and keeps the rest', async () => {
    const server = await fakeServer((req) => (req.prompt.includes('R=late') ? { hold: true } : { text: 'Score: 10' }));
    const deadlines: AbortController[] = [];
    const b = judge(
      patternJudge(server.baseUrl),
      { JUDGE_KEY: 'k' },
      {
        deadline: () => {
          const c = new AbortController();
          deadlines.push(c);
          return c.signal;
        },
      },
    );
    const scoring = b.score([item('late'), item('fast')], never);
    await server.waitForRequests(2);
    // The held request's item runs out of time (its deadline fires); the other one answered.
    deadlines[0]?.abort(new DOMException('deadline', 'TimeoutError'));
    const outs = await scoring;
    expect(codeOf(outs[0])).toBe('timeout');
    expect(scoreOf(outs[1])).toBe(1);
    server.release({ text: 'Score: 1' });
  });

  it('answers identical requests from the cache, never an unusable answer', async () => {
    const server = await fakeServer((req) => (req.prompt.includes('R=chatty') ? { text: 'no score here' } : { text: 'Score: 5' }));
    const b = judge(patternJudge(server.baseUrl), { JUDGE_KEY: 'k' });
    const first = await b.score([item('a'), item('a'), item('b')], never);
    expect(first.map((o) => o.extra?.cached)).toEqual([false, true, false]);
    const again = await b.score([item('a'), item('chatty')], never);
    expect(again.map((o) => o.extra?.cached)).toEqual([true, false]);
    expect(scoreOf(again[0])).toBe(scoreOf(first[0]));
    await b.score([item('chatty')], never);
    // a, b, chatty twice: the unparseable answer was asked again.
    expect(server.requests.map((r) => r.prompt.match(/R=(\w+)/)?.[1])).toEqual(['a', 'b', 'chatty', 'chatty']);
    // Another judge with the same prompt but other sampling is another request.
    const other = judge(patternJudge(server.baseUrl).replace('temperature: 0.2', 'temperature: 0.7'), { JUDGE_KEY: 'k' });
    await other.score([item('a')], never);
    expect(server.requests).toHaveLength(5);
  });

  it('reports a judge whose server refuses connections as not ready, its items unavailable', async () => {
    const gone = await fakeServer();
    await gone.close();
    servers = servers.filter((s) => s !== gone);
    const v = virtualClock();
    const b = judge(patternJudge(gone.baseUrl), { JUDGE_KEY: 'k' }, { clock: v.clock });
    const [out] = await b.score([item('4')], never);
    expect(codeOf(out)).toBe('unavailable');
    expect(b.ready()).toBe(false);
    expect(v.slept).toEqual([100, 200, 400]);
  });

  it('keeps at most max_concurrent requests in flight', async () => {
    const server = await fakeServer(() => ({ hold: true }));
    const b = judge(patternJudge(server.baseUrl, '    limits: {max_concurrent: 2}'), { JUDGE_KEY: 'k' });
    const scoring = b.score(
      ['a', 'b', 'c', 'd', 'e'].map((r) => item(r)),
      never,
    );
    for (let n = 2; n <= 5; n++) {
      await server.waitForRequests(n);
      server.release({ text: 'Score: 3' });
    }
    await server.waitForRequests(5);
    server.release({ text: 'Score: 3' });
    const outs = await scoring;
    expect(outs.map(scoreOf)).toEqual([2 / 9, 2 / 9, 2 / 9, 2 / 9, 2 / 9]);
    expect(server.peakInFlight).toBe(2);
  });

  it('stays within max_rpm: a server counting any 60 s window against the same limit never answers 429', async () => {
    const v = virtualClock();
    const server = await fakeServer(() => ({ text: 'Score: 8' }), 300, v.now);
    const b = judge(patternJudge(server.baseUrl, '    limits: {max_concurrent: 1, max_rpm: 300}'), { JUDGE_KEY: 'k' }, { clock: v.clock });
    const outs = await b.score(
      Array.from({ length: 400 }, (_, i) => item(`r${i}`)),
      never,
    );
    expect(outs.every((o) => scoreOf(o) === 7 / 9)).toBe(true);
    expect(server.rateLimited).toBe(0);
    // One request every 200 ms after the first: 400 requests take 79.8 virtual seconds, the full rate.
    expect(v.now()).toBe(79_800);
  });
  it('paces a batch behind max_rpm without timing it out: an item’s deadline starts at its first attempt', async () => {
    const v = virtualClock();
    const server = await fakeServer(() => ({ text: 'Score: 8' }));
    const yaml = patternJudge(server.baseUrl, '    limits: {max_concurrent: 1, max_rpm: 60}\n    timeout_ms: 5000');
    const b = judge(yaml, { JUDGE_KEY: 'k' }, { clock: v.clock, deadline: (ms) => v.deadline(ms) });
    const outs = await b.score(
      Array.from({ length: 20 }, (_, i) => item(`p${i}`)),
      never,
    );
    // One at a time (virtual time must not pass while a request is on the wire). The
    // last item's turn came 19 s in, far past 5 s: it was paced, not timed out.
    expect(outs.map((o) => codeOf(o) ?? 'ok')).toEqual(Array(20).fill('ok'));
    expect(v.now()).toBe(19_000);
  });

  it('times out an item whose retries outlast its deadline', async () => {
    const v = virtualClock();
    const server = await fakeServer(() => ({ status: 429, retryAfter: '3' }));
    const yaml = patternJudge(server.baseUrl, '    timeout_ms: 5000');
    const b = judge(yaml, { JUDGE_KEY: 'k' }, { clock: v.clock, deadline: (ms) => v.deadline(ms) });
    const [out] = await b.score([item('x')], never);
    expect(codeOf(out)).toBe('timeout');
    // Attempts at 0 s and 3 s; the wait to 6 s passes the 5 s deadline.
    expect(server.requests).toHaveLength(2);
  });
});

describe('judge metrics', () => {
  /** One series of the registry's text exposition, by metric name and `judge`/`outcome` labels. */
  async function seriesValue(registry: ServiceMetrics['registry'], name: string, labels: Record<string, string>): Promise<number> {
    const text = await registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  it('count requests, retries, 429s, cache hits, unparseable answers and time-outs per judge, and time each request', async () => {
    const server = await fakeServer((req) => {
      if (req.prompt.includes('R=late')) return { status: 429, retryAfter: '3' };
      if (req.prompt.includes('R=chatty')) return { text: 'no score here' };
      return { text: 'Score: 5' };
    });
    server.queue({ status: 429, retryAfter: '1' }, { status: 503 });
    const v = virtualClock();
    const { registry } = createMetrics('reward-model');
    const metrics = createJudgeMetrics(registry);
    const b = judge(patternJudge(server.baseUrl, '    timeout_ms: 5000'), { JUDGE_KEY: 'k' }, { clock: v.clock, deadline: (ms) => v.deadline(ms), metrics });
    const q = { judge: 'quality' };
    const counts = async () => ({
      requests: await seriesValue(registry, 'judge_requests_total', q),
      retries: await seriesValue(registry, 'judge_retries_total', q),
      rateLimited: await seriesValue(registry, 'judge_rate_limited_total', q),
      cacheHits: await seriesValue(registry, 'judge_cache_hits_total', q),
      parseFailures: await seriesValue(registry, 'judge_parse_failures_total', q),
      timeouts: await seriesValue(registry, 'judge_timeouts_total', q),
    });

    // A 429 then a 503, then the score: three requests, two of them retries, one 429.
    expect(scoreOf((await b.score([item('a')], never))[0])).toBe(4 / 9);
    expect(await counts()).toEqual({ requests: 3, retries: 2, rateLimited: 1, cacheHits: 0, parseFailures: 0, timeouts: 0 });
    // The same item again: the cache, no request.
    await b.score([item('a')], never);
    expect(await counts()).toEqual({ requests: 3, retries: 2, rateLimited: 1, cacheHits: 1, parseFailures: 0, timeouts: 0 });
    // An answer without a score.
    expect(codeOf((await b.score([item('chatty')], never))[0])).toBe('judge_unparseable');
    expect(await counts()).toEqual({ requests: 4, retries: 2, rateLimited: 1, cacheHits: 1, parseFailures: 1, timeouts: 0 });
    // 429s until the deadline: attempts at 0 s and 3 s, the next wait passes 5 s.
    expect(codeOf((await b.score([item('late')], never))[0])).toBe('timeout');
    expect(await counts()).toEqual({ requests: 6, retries: 3, rateLimited: 3, cacheHits: 1, parseFailures: 1, timeouts: 1 });
    expect(server.requests).toHaveLength(6);

    // One latency observation per request, by how it ended.
    const timed = (outcome: string) => seriesValue(registry, 'judge_request_duration_seconds_count', { ...q, outcome });
    expect([await timed('ok'), await timed('rate_limited'), await timed('server_error')]).toEqual([2, 3, 1]);
    // Another judge's series are its own.
    expect(await seriesValue(registry, 'judge_requests_total', { judge: 'other' })).toBe(0);
  });
});

describe('the example judge files', () => {
  const load = (file: string, baseUrl: string) => {
    const text = readFileSync(join(JUDGES_DIR, file), 'utf8').replace(/base_url: \S+/, `base_url: ${baseUrl}`);
    return judge(text, {}, { where: file });
  };

  it('quality.yaml: 1-10 from "Score: N"', async () => {
    const server = await fakeServer(() => ({ text: 'Clear and correct.\n**Score:** 9' }));
    const [out] = await load('quality.yaml', server.baseUrl).score([item('2+2 is 4.')], never);
    expect(scoreOf(out)).toBeCloseTo(8 / 9, 12);
    expect(server.requests[0]?.prompt).toContain('2+2 is 4.');
  });

  it('correctness.yaml: yes/no against the reference; an item without one is its own error', async () => {
    const server = await fakeServer((req) => ({ text: req.prompt.includes('five') ? 'The answer differs. Verdict: no' : 'Verdict: yes' }));
    const b = load('correctness.yaml', server.baseUrl);
    const outs = await b.score([item('four'), item('five'), item('four', { groundTruth: undefined })], never);
    expect(outs.map((o) => scoreOf(o) ?? codeOf(o))).toEqual([1, 0, 'bad_request']);
    expect(server.requests).toHaveLength(2);
  });

  it('story-zh.yaml: the Chinese rubric over the story context, JSON score 0-10', async () => {
    const server = await fakeServer(() => ({ text: '```json\n{"连贯性": 2, "文笔": 1, "理由": "衔接自然", "score": 7}\n```' }));
    const story = item('骑士拔出了剑。', {
      extraInfo: { story_content: '夜里，骑士守着城门。', user_input: '我问骑士怎么打败龙。' },
      groundTruth: '骑士说龙怕火。',
    });
    const [out] = await load('story-zh.yaml', server.baseUrl).score([story], never);
    expect(scoreOf(out)).toBeCloseTo(0.7, 12);
    const prompt = server.requests[0]?.prompt ?? '';
    for (const part of ['夜里，骑士守着城门。', '我问骑士怎么打败龙。', '骑士说龙怕火。', '骑士拔出了剑。']) expect(prompt).toContain(part);
  });
});
