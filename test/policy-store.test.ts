// Weight hot-swap through a real JetStream Object Store: the trainer side
// publishes versions, a watcher loads each into a new model, and leases taken
// before a swap finish on the model they started with.
import type { NatsConnection } from '@nats-io/transport-node';
import {
  ModelHandle,
  PolicyTrainer,
  arithmeticTokenizer,
  createRandomPolicy,
  fetchWeights,
  np,
  openWeightsStore,
  publishWeights,
  watchWeights,
  type EmbeddedPolicy,
  type PolicyLoss,
} from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, type NatsServer } from './support/processes.ts';

let nats: NatsServer;
let nc: NatsConnection;
beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectTestClient(nats.url);
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

/** An async queue: push from callbacks, await items in order. */
function channel<T>() {
  const items: T[] = [];
  const waiting: Array<(v: T) => void> = [];
  return {
    push(v: T) {
      const w = waiting.shift();
      if (w) w(v);
      else items.push(v);
    },
    next(): Promise<T> {
      const v = items.shift();
      return v !== undefined ? Promise.resolve(v) : new Promise((res) => waiting.push(res));
    },
  };
}

const tok = arithmeticTokenizer();
const PROMPTS = ['6,2:9,6', '1,3:9,1'].map((p) => tok.encode(p));
const GREEDY = { temperature: 0, maxTokens: 8, stopTokenIds: [] };
const TINY = { dModel: 32, nLayers: 2, nHeads: 2, dFF: 64, maxSeqLen: 64 };
const nll: PolicyLoss = (t) => ({ loss: np.sum(t.logprobs.mul(t.mask)).mul(-0.1) });

describe('policy weights in a JetStream object store', () => {
  it('publishes versions that a watcher hot-swaps in; in-flight leases finish on the old model', async () => {
    const os = await openWeightsStore(nc, 'policy-test');
    const v1 = await createRandomPolicy({ config: TINY, tokenizer: tok.config, seed: 1 });
    const v1Output = await v1.generate(PROMPTS, GREEDY);
    const info1 = await publishWeights(os, 'actor', v1, 'v1');
    expect(info1.metadata).toEqual({ version: 'v1' });
    expect((await fetchWeights(os, 'actor'))?.version).toBe('v1');

    const arrivals = channel<EmbeddedPolicy>();
    const errors = channel<unknown>();
    let handle: ModelHandle<EmbeddedPolicy> | undefined;
    const watcher = await watchWeights(
      os,
      'actor',
      (policy) => {
        if (handle === undefined) handle = new ModelHandle(policy);
        else handle.swap(policy);
        arrivals.push(policy);
      },
      { onError: (err) => errors.push(err) },
    );

    const first = await arrivals.next();
    expect(first.version).toBe('v1');
    expect(await first.generate(PROMPTS, GREEDY)).toEqual(v1Output);

    // A request takes its lease and starts before the trainer publishes v2.
    const lease = handle!.acquire();
    const inFlight = lease.model.generate(PROMPTS, GREEDY);
    const trainer = await PolicyTrainer.create(await v1.exportWeights(), { lr: 5e-2 });
    for (let i = 0; i < 3; i++) await trainer.step({ pairs: PROMPTS.map((prompt) => ({ prompt, response: tok.encode('1,2,3') })) }, nll);
    const info2 = await publishWeights(os, 'actor', trainer, 'v2');
    expect(info2.metadata).toEqual({ version: 'v2' });

    const second = await arrivals.next();
    expect(second.version).toBe('v2');
    expect(handle!.current).toBe(second);
    expect(await inFlight).toEqual(v1Output);
    expect(await lease.model.generate(PROMPTS, GREEDY)).toEqual(v1Output); // still usable after the swap
    lease.release();
    expect(() => first.params).toThrow(/after dispose/); // freed with its last lease

    using next = handle!.acquire();
    expect(next.model.version).toBe('v2');
    const pairs = PROMPTS.map((prompt) => ({ prompt, response: tok.encode('1,2,3') }));
    const trained = await trainer.snapshot('check');
    expect(await next.model.logprobs(pairs)).toEqual(await trained.logprobs(pairs));
    trained.dispose();

    // A corrupt object is reported and skipped; the watch goes on to the next version.
    await os.putBlob({ name: 'actor', metadata: { version: 'broken' } }, new TextEncoder().encode('not safetensors'));
    expect(await errors.next()).toMatchObject({ code: 'validation_failed' });
    await publishWeights(os, 'actor', await v1.exportWeights('v3'), 'v3');
    expect((await arrivals.next()).version).toBe('v3');

    await watcher.stop();
    handle!.close();
    trainer.dispose();
    v1.dispose();
  });
});
