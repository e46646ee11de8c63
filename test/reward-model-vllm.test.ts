// The vLLM backend of trained reward models against a fake `/classify` server
// over real HTTP that scores each rendered input on the project's own engine
// (jax-js, the same tiny reward model): the request verl's reward loop sends,
// scores equal to the local backend's, and retries, time-outs, 5xx, garbage,
// an unreachable server and an item too long as per-item errors. Waits are
// recorded, not slept; an attempt's time limit is a signal the test aborts.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenizer, loadModelDir, policyFromWeights, tokenizerFromDir, type EmbeddedPolicy, type Tokenizer } from '@rl/policy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ItemOutcome, ModelItem } from '../services/reward-model/src/core/backend.ts';
import { loadRewardModel } from '../services/reward-model/src/models/load-reward-model.ts';
import { RewardModelsEnv } from '../services/reward-model/src/models/reward-model-spec.ts';
import { writeTinyRewardModel } from '../services/reward-model/src/models/testing/tiny-reward-model.ts';
import { VllmRewardModel, type VllmRewardModelOptions } from '../services/reward-model/src/models/vllm-reward-model.ts';
import { type FakeClassifyServer, startFakeClassifyServer } from './support/fake-classify-server.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rl-rm-vllm-'));
const dir = join(tmp, 'rm');
let tokenizer: Tokenizer;
let policy: EmbeddedPolicy;
let server: FakeClassifyServer;

const item = (messages: ModelItem['messages'], response: string): ModelItem => ({ dataSource: 'd', messages, response, extraInfo: {} });
const ITEMS: ModelItem[] = [
  item([{ role: 'user', content: 'What is 9+9?' }], '9+9 = 18.'),
  item(
    [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a colour.' },
    ],
    'Blue',
  ),
  item([{ role: 'user', content: '你好' }], '你好！有什么可以帮你？'),
];
const never = new AbortController().signal;
const scoreOf = (o: ItemOutcome | undefined) => (o !== undefined && 'score' in o ? o.score : undefined);
const codeOf = (o: ItemOutcome | undefined) => (o !== undefined && 'error' in o ? o.error.code : undefined);

beforeAll(async () => {
  await writeTinyRewardModel(dir, { head: 'token' });
  tokenizer = createTokenizer(await tokenizerFromDir(dir));
  policy = await policyFromWeights(await loadModelDir(dir));
  // As vLLM does: tokenize the text (special-token strings as specials) and read the one-label head at the last token.
  server = await startFakeClassifyServer(async (input) => {
    const ids = tokenizer.encode(input, { allowSpecial: true });
    const [values] = await policy.values([{ prompt: ids, response: [tokenizer.padId] }]);
    return values?.[0] as number;
  });
});
afterAll(async () => {
  await server.close();
  policy.dispose();
  rmSync(tmp, { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
});

/** A backend on the fake with recorded waits and attempt limits the test aborts. */
function backend(over: Partial<VllmRewardModelOptions> = {}) {
  const slept: number[] = [];
  const deadlines: AbortController[] = [];
  const b = new VllmRewardModel({
    name: 'vm',
    url: `${server.origin}/classify`,
    model: 'served-rm',
    tokenizer,
    maxTokens: 256,
    timeoutMs: 1000,
    backoffMs: 100,
    maxConcurrent: 1,
    sleep: async (ms) => void slept.push(ms),
    attemptDeadline: () => {
      const c = new AbortController();
      deadlines.push(c);
      return c.signal;
    },
    ...over,
  });
  return { b, slept, deadlines };
}

describe('vLLM /classify reward model', () => {
  it('sends verl’s request per item and scores as the local jax-js backend does', async () => {
    const [spec] = RewardModelsEnv.parse(`vm=vllm:${server.origin}/served-rm?tokenizer=${encodeURIComponent(dir)}`);
    expect(spec).toEqual({ name: 'vm', engine: 'vllm', url: `${server.origin}/classify`, model: 'served-rm', dir });
    if (spec === undefined) throw new Error('no spec');
    const remote = await loadRewardModel(spec, { maxBatchTokens: 4096, vllmTimeoutMs: 30_000 });
    const local = await loadRewardModel({ name: 'local', dir, engine: 'jax' }, { maxBatchTokens: 4096 });
    try {
      const [got, want] = await Promise.all([remote.score(ITEMS, never), local.score(ITEMS, never)]);
      expect(got.map(codeOf)).toEqual([undefined, undefined, undefined]);
      got.forEach((o, i) => expect(scoreOf(o)).toBeCloseTo(scoreOf(want[i]) as number, 4));
      expect(new Set(got.map(scoreOf)).size).toBe(3);
      expect(got[0]?.extra).toMatchObject({ model: 'vm', engine: 'vllm', tokens: want[0]?.extra?.tokens, attempts: 1 });
      const inputs = ITEMS.map((it) =>
        tokenizer.renderChatTemplate([...it.messages, { role: 'assistant', content: it.response }], { addGenerationPrompt: false }),
      );
      expect(inputs[0]).toBe('<|im_start|>user\nWhat is 9+9?<|im_end|>\n<|im_start|>assistant\n9+9 = 18.<|im_end|>\n');
      expect([...server.requests].sort((a, b) => String(a.input).localeCompare(String(b.input)))).toEqual(
        inputs.map((input) => ({ model: 'served-rm', input, use_activation: false })).sort((a, b) => a.input.localeCompare(b.input)),
      );
      expect(remote.ready()).toBe(true);
    } finally {
      await Promise.all([remote.close(), local.close()]);
    }
  });

  it('removes a leading BOS token string the chat template renders, as verl does before posting', async () => {
    // The same tokenizer with a template that opens with {{ bos_token }} (Llama-style).
    const bosDir = join(tmp, 'bos-tokenizer');
    mkdirSync(bosDir, { recursive: true });
    for (const f of ['tokenizer.json', 'special_tokens_map.json', 'generation_config.json', 'config.json']) copyFileSync(join(dir, f), join(bosDir, f));
    const { rl_tokenizer: _own, ...config } = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(bosDir, 'tokenizer_config.json'), JSON.stringify({ ...config, chat_template: `{{ bos_token }}${String(config.chat_template)}` }));
    const [spec] = RewardModelsEnv.parse(`vm=vllm:${server.origin}/served-rm?tokenizer=${encodeURIComponent(bosDir)}`);
    if (spec === undefined) throw new Error('no spec');
    const remote = await loadRewardModel(spec, { maxBatchTokens: 4096 });
    const bosTokenizer = createTokenizer(await tokenizerFromDir(bosDir));
    const conversation = [...(ITEMS[0] as ModelItem).messages, { role: 'assistant' as const, content: (ITEMS[0] as ModelItem).response }];
    expect(bosTokenizer.renderChatTemplate(conversation).startsWith('<bos><|im_start|>user')).toBe(true);
    const [out] = await remote.score([ITEMS[0] as ModelItem], never);
    expect(typeof scoreOf(out)).toBe('number');
    expect(server.requests.map((r) => r.input)).toEqual([tokenizer.renderChatTemplate(conversation)]);
  });

  it('retries 5xx and 429 with backoff (Retry-After when longer), then scores', async () => {
    server.queue({ status: 503 }, { status: 500 });
    const { b, slept } = backend();
    const [out] = await b.score([ITEMS[0] as ModelItem], never);
    expect(typeof scoreOf(out)).toBe('number');
    expect(out?.extra).toMatchObject({ attempts: 3 });
    expect(slept).toEqual([100, 200]);
    expect(server.requests).toHaveLength(3);
  });

  it('a server failing every attempt is that item’s upstream_error; the next item is still scored', async () => {
    server.queue({ status: 502 }, { status: 502 }, { status: 502 }, { status: 502 });
    const { b } = backend();
    const [bad, good] = await b.score(ITEMS.slice(0, 2), never);
    expect(codeOf(bad)).toBe('upstream_error');
    expect(bad && 'error' in bad ? bad.error.message : '').toMatch(/HTTP 502.*after 4 attempts/);
    expect(typeof scoreOf(good)).toBe('number');
  });

  it('an attempt past its time limit is retried; every attempt timed out is the item’s timeout', async () => {
    server.queue({ hold: true });
    const first = backend({ retries: 1 });
    const scored = first.b.score([ITEMS[0] as ModelItem], never);
    await server.waitForRequests(1);
    first.deadlines[0]?.abort(new DOMException('attempt limit', 'TimeoutError'));
    const [out] = await scored;
    expect(typeof scoreOf(out)).toBe('number');
    expect(out?.extra).toMatchObject({ attempts: 2 });

    server.queue({ hold: true });
    const second = backend({ retries: 0 });
    const late = second.b.score([ITEMS[0] as ModelItem], never);
    await server.waitForRequests(3);
    second.deadlines[0]?.abort(new DOMException('attempt limit', 'TimeoutError'));
    const [timedOut] = await late;
    expect(codeOf(timedOut)).toBe('timeout');
    expect(timedOut && 'error' in timedOut ? timedOut.error.message : '').toMatch(/no answer within 1000 ms, 1 attempts/);
  });

  it('an answer without data[-1].probs[-1] and a 4xx are upstream errors, not retried', async () => {
    server.queue({ status: 200, body: '{"data": []}' }, { status: 400, body: '{"error": "too long"}' });
    const { b } = backend();
    const out = await b.score(ITEMS.slice(0, 2), never);
    expect(out.map(codeOf)).toEqual(['upstream_error', 'upstream_error']);
    expect(out.map((o) => ('error' in o ? o.error.message : ''))).toEqual([
      expect.stringMatching(/no data\[-1\]\.probs\[-1\]/),
      expect.stringMatching(/HTTP 400: \{"error": "too long"\}/),
    ]);
    expect(server.requests).toHaveLength(2);
  });

  it('an item longer than the model reads is refused before any request; an unreachable server is not ready', async () => {
    const { b } = backend({ maxTokens: 40 });
    const [long, short] = await b.score([item([{ role: 'user', content: 'x'.repeat(100) }], 'y'), item([], 'ok')], never);
    expect(codeOf(long)).toBe('payload_too_large');
    expect(long?.extra).toMatchObject({ max_tokens: 40 });
    expect(typeof scoreOf(short)).toBe('number');
    expect(server.requests).toHaveLength(1);

    const gone = await startFakeClassifyServer(async () => 0);
    await gone.close();
    const down = backend({ url: `${gone.origin}/classify`, retries: 1 });
    const [refused] = await down.b.score([ITEMS[0] as ModelItem], never);
    expect(codeOf(refused)).toBe('upstream_error');
    expect(refused && 'error' in refused ? refused.error.message : '').toMatch(/connection failed.*after 2 attempts/);
    expect(down.b.ready()).toBe(false);
  });

  it('REWARD_MODELS refuses a vLLM entry without a served name or a tokenizer, naming the entry', () => {
    expect(() => RewardModelsEnv.parse('vm=vllm:http://h:8000/?tokenizer=/m')).toThrow(/vm: .*the path names the served model/);
    expect(() => RewardModelsEnv.parse('vm=vllm:http://h:8000/rm')).toThrow(/vm: .*\?tokenizer=DIR/);
    expect(() => RewardModelsEnv.parse('vm=vllm:ftp://h/rm?tokenizer=/m')).toThrow(/vm: .*expected an http\(s\) URL/);
    expect(RewardModelsEnv.parse('vm=vllm:http://h:8000//models/FsfairX?tokenizer=/m')).toEqual([
      { name: 'vm', engine: 'vllm', url: 'http://h:8000/classify', model: '/models/FsfairX', dir: '/m' },
    ]);
  });
});
