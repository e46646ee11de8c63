// One trainer step is one trace. Real parts: nats-server, generation,
// reward-rules, reward-sandbox and the trainer (with its policy worker), each
// exporting spans with the OpenTelemetry SDK's own OTLP/HTTP exporter (JSON
// encoding) to a receiver this test runs. A two-step GRPO job on math and code
// rows (the code rows routed through reward-rules, which forwards them to the
// sandbox) must give one trace per step holding the step's stage spans and the
// spans of all four services, the forwarded sandbox call under the step.
// `TRACE_DUMP=1` prints the span tree of each step.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createParquetWriter, fieldsOf, MESSAGE_LIST, REWARD_MODEL, scalar, structOf } from '@rl/datasets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../services/trainer/src/cli/sse.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const BUCKET = `rl-trace-${process.pid}`;
const JOB = 'traced';
const STEPS = 2;
const SERVICES = ['trainer', 'generation', 'reward-rules', 'reward-sandbox'];

/** One span as the receiver keeps it (OTLP JSON flattened). */
interface SpanRecord {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

// --- A minimal OTLP/HTTP receiver (JSON encoding): POST /v1/traces -----------

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };
type ExportRequest = {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[] }> }>;
  }>;
};

function otlpValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(otlpValue);
  return undefined;
}

const attrs = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, otlpValue(kv.value)]));
/** OTLP JSON ids are hex; a base64 one (protobuf-style JSON) is turned into hex. */
const hexId = (id: string | undefined, bytes: number) =>
  id === undefined || id === '' ? '' : id.length === bytes * 2 ? id : Buffer.from(id, 'base64').toString('hex');

function flatten(req: ExportRequest): SpanRecord[] {
  return (req.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attrs(rs.resource?.attributes)['service.name']);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        traceId: hexId(s.traceId, 16),
        spanId: hexId(s.spanId, 8),
        parentSpanId: hexId(s.parentSpanId, 8),
        name: s.name,
        kind: s.kind,
        attributes: attrs(s.attributes),
      })),
    );
  });
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

interface Receiver {
  url: string;
  spans: SpanRecord[];
  /** Content types of the export requests, to show the exporter spoke JSON. */
  contentTypes: Set<string>;
  /** Resolves when `ready(spans)` holds after some export, rejects after `timeoutMs`. */
  waitFor(ready: (spans: readonly SpanRecord[]) => boolean, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const spans: SpanRecord[] = [];
  const contentTypes = new Set<string>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const data = await body(req);
      if (req.method === 'POST' && req.url === '/v1/traces') {
        contentTypes.add(String(req.headers['content-type']));
        spans.push(...flatten(JSON.parse(data.toString('utf8')) as ExportRequest));
        for (const w of waiters) w();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })();
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    waitFor: (ready, timeoutMs) =>
      new Promise<void>((res, rej) => {
        const check = () => {
          if (!ready(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          res();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          rej(new Error(`the spans did not arrive within ${timeoutMs} ms; received:\n${spanTree(spans)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}

// --- Span trees ----------------------------------------------------------------

const KIND = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** `service: name [kind] {rl.* attributes}` per span, children indented under their parent, in a stable order. */
function spanTree(spans: readonly SpanRecord[]): string {
  const byParent = Map.groupBy(spans, (s) => s.parentSpanId);
  const ids = new Set(spans.map((s) => s.spanId));
  const lines: string[] = [];
  const walk = (s: SpanRecord, depth: number) => {
    const shown = Object.entries(s.attributes).filter(([k]) => k.startsWith('rl.') && k !== 'rl.request_id' && k !== 'rl.model_version');
    const a = shown.length === 0 ? '' : ` ${JSON.stringify(Object.fromEntries(shown))}`;
    lines.push(`${'  '.repeat(depth)}${s.service}: ${s.name} [${KIND[s.kind] ?? s.kind}]${a}`);
    for (const c of byParent.get(s.spanId) ?? []) walk(c, depth + 1);
  };
  for (const root of spans.filter((s) => s.parentSpanId === '' || !ids.has(s.parentSpanId))) walk(root, 0);
  return lines.join('\n');
}

// --- The services and the job ----------------------------------------------------

let receiver: Receiver;
let nats: NatsServer;
let services: ServiceProcess[] = [];
let trainer: ServiceProcess;
let work: string;

const MATH = (i: number) => ({
  data_source: 'openai/gsm8k',
  prompt: [{ role: 'user', content: `${i}+1=` }],
  ability: 'math',
  reward_model: { ground_truth: String(i + 1), style: 'rule' },
  extra_info: { index: i },
});
const CODE = (i: number) => ({
  data_source: 'apps',
  prompt: [{ role: 'user', content: `echo ${i}` }],
  ability: 'code',
  reward_model: { ground_truth: JSON.stringify({ inputs: [`${i}\n`], outputs: [`${i}\n`] }), style: 'rule' },
  extra_info: { index: i },
});

async function writeRows(path: string): Promise<void> {
  const w = await createParquetWriter(
    path,
    fieldsOf({
      data_source: scalar('string'),
      prompt: MESSAGE_LIST,
      ability: scalar('string'),
      reward_model: REWARD_MODEL,
      extra_info: structOf({ index: scalar('int64') }),
    }),
  );
  // Unshuffled batches of 4: every step scores two math and two code prompts.
  for (let i = 0; i < 4 * STEPS; i++) await w.write(i % 2 === 0 ? MATH(i) : CODE(i));
  await w.close();
}

type Event = { type: string; state?: string; step?: number; metrics?: Record<string, number> };

async function runJob(): Promise<Event[]> {
  const config = {
    data: { train_files: join(work, 'rows.parquet'), train_batch_size: 4, shuffle: false, max_prompt_length: 48, max_response_length: 8, seed: 3 },
    actor_rollout_ref: {
      model: { tokenizer: 'char', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, seed: 1 },
      rollout: { n: 2 },
      actor: { optim: { lr: 0.01, weight_decay: 0 }, ppo_mini_batch_size: 2 },
    },
    algorithm: { adv_estimator: 'grpo' },
    trainer: { total_training_steps: STEPS, save_freq: STEPS, val_before_train: false, default_local_dir: join(work, 'job') },
    // Code rows go to reward-rules, which forwards them to reward-sandbox (the default routes send them to the sandbox directly).
    reward: { routes: { apps: 'reward.rules.score' }, timeout_ms: 60_000 },
    rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
  };
  const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: JOB, config }),
  });
  expect(r.status, await r.clone().text()).toBe(201);
  const res = await fetch(`${trainer.baseUrl}/v1/jobs/${JOB}/metrics?stream=true`);
  const events: Event[] = [];
  for await (const m of readSse(res.body!)) events.push(JSON.parse(m.data) as Event);
  const view = await (await fetch(`${trainer.baseUrl}/v1/jobs/${JOB}`)).text();
  expect(events.at(-1), view).toMatchObject({ type: 'state', state: 'succeeded' });
  return events;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-trace-'));
  await writeRows(join(work, 'rows.parquet'));
  receiver = await startReceiver();
  // Each service names itself (service.name); an inherited OTEL_SERVICE_NAME would rename them all.
  delete process.env.OTEL_SERVICE_NAME;
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  nats = await startNatsServer();
  services = await Promise.all([
    startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1', ...otel }),
    startService('reward-sandbox', { NATS_URL: nats.url, ...otel }),
    startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor', ...otel }),
  ]);
  trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work, ...otel });
}, 120_000);

afterAll(async () => {
  await Promise.all([trainer, ...services].map((s) => s?.stop()));
  await nats?.stop();
  await receiver?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The spans of `traceId`, and a lookup of each span's ancestors. */
function traceOf(spans: readonly SpanRecord[], traceId: string) {
  const inTrace = spans.filter((s) => s.traceId === traceId);
  const byId = new Map(inTrace.map((s) => [s.spanId, s]));
  const ancestors = (s: SpanRecord): SpanRecord[] => {
    const out: SpanRecord[] = [];
    for (let p = byId.get(s.parentSpanId); p !== undefined; p = byId.get(p.parentSpanId)) out.push(p);
    return out;
  };
  return { spans: inTrace, ancestors };
}

const stepRoots = (spans: readonly SpanRecord[]) => spans.filter((s) => s.service === 'trainer' && s.name === 'trainer.step');

/** Every step's root has arrived, and in its trace the sandbox's span of the forwarded items under reward-rules' forward. */
function complete(spans: readonly SpanRecord[]): boolean {
  const roots = stepRoots(spans);
  if (roots.length < STEPS) return false;
  return roots.every((root) => {
    const t = traceOf(spans, root.traceId);
    const forwarded = t.spans.filter(
      (s) => s.service === 'reward-sandbox' && t.ancestors(s).some((a) => a.service === 'reward-rules' && a.name === 'reward.sandbox.score'),
    );
    return (
      forwarded.length > 0 &&
      SERVICES.every((name) => t.spans.some((s) => s.service === name)) &&
      t.spans.some((s) => s.name === 'save_checkpoint') === (root.attributes['rl.step'] === STEPS)
    );
  });
}

describe('one trace per training step', () => {
  it('a step’s spans, across trainer, generation, reward-rules and reward-sandbox, form one trace under trainer.step', async () => {
    const events = await runJob();
    const stepMetrics = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
    expect(stepMetrics.map((m) => m.step)).toEqual([1, 2]);
    await receiver.waitFor(complete, 30_000);
    expect([...receiver.contentTypes]).toEqual(['application/json']);

    const roots = stepRoots(receiver.spans);
    // One root per step, each its own trace, tagged with the job and the step.
    expect(roots.map((r) => r.attributes['rl.step']).sort()).toEqual([1, 2]);
    expect(new Set(roots.map((r) => r.traceId)).size).toBe(STEPS);
    for (const root of roots) {
      expect(root.parentSpanId).toBe('');
      expect(root.attributes).toMatchObject({ 'rl.job_id': JOB, 'rl.epoch': 0 });
      const step = root.attributes['rl.step'] as number;
      const t = traceOf(receiver.spans, root.traceId);
      if (process.env.TRACE_DUMP === '1') console.log(`\n--- trace ${root.traceId} (step ${step}) ---\n${spanTree(t.spans)}`);

      // Every span of the trace hangs from the root; all four services took part.
      for (const s of t.spans.filter((x) => x !== root)) expect(t.ancestors(s).at(-1), `${s.service}: ${s.name}`).toBe(root);
      expect([...new Set(t.spans.map((s) => s.service))].sort()).toEqual([...SERVICES].sort());

      // The root's children are the step's stages, named as its timing_s metrics, then the checkpoint at the last step.
      const stages = t.spans.filter((s) => s.parentSpanId === root.spanId).map((s) => s.name);
      const timed = Object.keys(stepMetrics[step - 1]!)
        .filter((k) => k.startsWith('timing_s/') && k !== 'timing_s/step')
        .map((k) => k.slice('timing_s/'.length));
      expect(stages.filter((n) => n !== 'save_checkpoint').sort()).toEqual(timed.sort());
      expect(stages).toEqual(expect.arrayContaining(['gen', 'old_log_prob', 'reward', 'adv', 'update_actor', 'publish']));
      expect(stages.includes('save_checkpoint')).toBe(step === STEPS);

      const only = (service: string, name: string, parent?: SpanRecord) => {
        const found = t.spans.filter((s) => s.service === service && s.name === name && (parent === undefined || s.parentSpanId === parent.spanId));
        expect(found, `${service}: ${name}`).toHaveLength(1);
        return found[0]!;
      };
      // gen -> the trainer's rollout.generate request -> generation's rollout.generate server span.
      const gen = only('trainer', 'gen', root);
      const rolloutCall = only('trainer', 'rollout.generate', gen);
      const rollout = only('generation', 'rollout.generate', rolloutCall);
      expect(rollout.attributes).toMatchObject({ 'rl.edge': 'nats', 'rl.items': 4, 'rl.data_sources': ['apps', 'openai/gsm8k'] });
      expect(rolloutCall.attributes).toMatchObject({
        'messaging.system': 'nats',
        'messaging.destination.name': 'rollout.generate',
        'rl.data_sources': ['apps', 'openai/gsm8k'],
      });

      // reward (streamed: open from the first scoring call, which starts during gen) -> reward.rules.score (math and code items) -> reward-rules' reward.score -> its forward of the code
      // items, reward.sandbox.score -> reward-sandbox's reward.score: the sandbox span descends from the step.
      const reward = only('trainer', 'reward', root);
      const rewardCalls = t.spans.filter((s) => s.service === 'trainer' && s.name === 'reward.rules.score' && s.parentSpanId === reward.spanId);
      expect(rewardCalls.length).toBeGreaterThan(0);
      // Rewards are requested as the rollouts finish (reward.stream), so each call holds some of the items.
      expect([...new Set(rewardCalls.flatMap((call) => call.attributes['rl.data_sources'] as string[]))].sort()).toEqual(['apps', 'openai/gsm8k']);
      const rulesSpans = t.spans.filter((s) => s.service === 'reward-rules' && s.name === 'reward.score');
      expect(rulesSpans.length).toBe(rewardCalls.length);
      for (const s of rulesSpans) expect(rewardCalls.map((c) => c.spanId)).toContain(s.parentSpanId);
      const forwards = t.spans.filter((s) => s.service === 'reward-rules' && s.name === 'reward.sandbox.score');
      expect(forwards.length).toBeGreaterThan(0);
      for (const f of forwards) {
        expect(rulesSpans.map((s) => s.spanId)).toContain(f.parentSpanId);
        expect(f.attributes).toMatchObject({ 'rl.data_sources': ['apps'], 'messaging.destination.name': 'reward.sandbox.score' });
      }
      const sandbox = t.spans.filter((s) => s.service === 'reward-sandbox' && s.name === 'reward.score');
      expect(sandbox.map((s) => s.parentSpanId).sort()).toEqual(forwards.map((f) => f.spanId).sort());
      for (const s of sandbox) {
        expect(s.kind).toBe(2); // SERVER
        expect(t.ancestors(s).map((a) => `${a.service}: ${a.name}`)).toEqual([
          'reward-rules: reward.sandbox.score',
          'reward-rules: reward.score',
          'trainer: reward.rules.score',
          'trainer: reward',
          'trainer: trainer.step',
        ]);
      }
    }
  }, 300_000);
});
