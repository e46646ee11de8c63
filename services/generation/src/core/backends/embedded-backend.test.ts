import { describe, expect, it } from 'vitest';
import { tokenizer } from '../agent/testing/agent.ts';
import type { PolicyModel } from '../policy-types.ts';
import { createEmbeddedBackend, type PolicyProvider } from './embedded-backend.ts';
import { createScriptedPolicy, type Script } from './scripted-policy.ts';

/** A provider whose model can be swapped, counting leases per version like the policy's ModelHandle. */
function swappable(first: PolicyModel) {
  let current = first;
  const leases = new Map<string, number>();
  const provider: PolicyProvider = {
    acquire: async () => {
      const model = current;
      leases.set(model.version, (leases.get(model.version) ?? 0) + 1);
      return { model, release: () => leases.set(model.version, (leases.get(model.version) ?? 0) - 1) };
    },
    current: () => current,
  };
  return { provider, leases, swap: (m: PolicyModel) => (current = m) };
}

describe('embedded backend', () => {
  it('pins a session to the weights it started on across a hot swap', async () => {
    const gate = Promise.withResolvers<void>();
    const slow: Script = async () => (await gate.promise, 'old');
    const v1 = createScriptedPolicy({ script: slow, tokenizer, version: 'v1' });
    const v2 = createScriptedPolicy({ script: () => 'new', tokenizer, version: 'v2' });
    const { provider, leases, swap } = swappable(v1);
    const backend = createEmbeddedBackend({ provider, model: 'm' });

    const inFlight = await backend.open();
    if (inFlight.mode !== 'tokens') throw new Error('token session expected');
    const pending = inFlight.generate({ promptIds: [1, 2], params: { maxTokens: 10 } });
    swap(v2);
    expect(backend.currentVersion()).toBe('v2');
    const next = await backend.open();
    if (next.mode !== 'tokens') throw new Error('token session expected');
    const fresh = await next.generate({ promptIds: [1, 2], params: { maxTokens: 10 } });
    expect(await next.codec.decode(fresh.tokenIds)).toBe('new');
    next.release();
    expect(leases.get('v1')).toBe(1);

    gate.resolve();
    const old = await pending;
    expect([inFlight.modelVersion, await inFlight.codec.decode(old.tokenIds)]).toEqual(['v1', 'old']);
    inFlight.release();
    expect([leases.get('v1'), leases.get('v2')]).toEqual([0, 0]);
  });

  it('clamps max tokens to the model’s sequence limit and answers an over-long prompt with nothing', async () => {
    const policy = createScriptedPolicy({ script: () => 'abcdefghij', tokenizer, maxSequenceLength: 8 });
    const session = await createEmbeddedBackend({
      provider: { acquire: async () => ({ model: policy, release: () => {} }), current: () => policy },
      model: 'm',
    }).open();
    if (session.mode !== 'tokens') throw new Error('token session expected');
    expect((await session.generate({ promptIds: [1, 2, 3, 4, 5], params: { maxTokens: 100 } })).tokenIds).toHaveLength(3);
    expect(await session.generate({ promptIds: Array(8).fill(1), params: { maxTokens: 100 } })).toEqual({ tokenIds: [], logprobs: [], finishReason: 'length' });
  });
});
