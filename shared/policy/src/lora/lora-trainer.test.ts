// LoRA training on the jax-js engine: a fresh adapter is the base, an update
// moves the adapters only (the base, which is the reference policy, stays),
// the merged weights are the host merge of the exported adapter, optimizer
// state round-trips under the torch engine's names, and nothing leaks.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PolicyWeights } from '../embedded-policy.ts';
import { np } from '../model/backend.ts';
import { decodeSafetensors } from '../weights/safetensors.ts';
import { trackLiveBuffers } from '../testing/live-buffers.ts';
import { tinyPolicy } from '../testing/tiny-policy.ts';
import { arithmeticTokenizer } from '../tokenizers/tokenizer.ts';
import type { PolicyLoss } from '../training/loss-inputs.ts';
import type { LoraSettings } from './adapter-config.ts';
import { mergeAdapter } from './lora-adapter.ts';
import { LoraTrainer } from './lora-trainer.ts';

const tok = arithmeticTokenizer();
const PAIRS = ['6,2:9,6', '1,3:9,1'].map((p) => ({ prompt: tok.encode(p), response: tok.encode('2,9,6,3') }));

/** Token-mean negative log-likelihood. */
const nll: PolicyLoss = (t) => ({ loss: np.sum(t.logprobs.mul(t.mask.ref)).mul(-1).div(np.sum(t.mask)) });

const SETTINGS: LoraSettings = {
  r: 4,
  loraAlpha: 8,
  targetModules: 'all-linear',
  excludeModules: ['layers.1.mlp.down_proj'],
  useRslora: false,
  loraDropout: 0,
  initLoraWeights: true,
  valueHead: false,
  baseModel: null,
};
const OPTIMIZER = { lr: 1e-2, weightDecay: 0.01 };

let base: PolicyWeights;
beforeAll(async () => {
  const init = await tinyPolicy(2);
  base = await init.exportWeights();
  init.dispose();
});

const flat = (scores: Array<{ logprobs: Float32Array }>) => scores.flatMap((s) => Array.from(s.logprobs));

describe('LoraTrainer', () => {
  it('starts as the base, then trains the adapters only: the reference (the base) stays, the merged weights are the host merge', async () => {
    const trainer = await LoraTrainer.create(base, OPTIMIZER, SETTINGS, { seed: 3 });
    try {
      expect(trainer.settings.targetModules).toEqual([
        'model.layers.0.self_attn.q_proj',
        'model.layers.0.self_attn.k_proj',
        'model.layers.0.self_attn.v_proj',
        'model.layers.0.self_attn.o_proj',
        'model.layers.0.mlp.gate_proj',
        'model.layers.0.mlp.up_proj',
        'model.layers.0.mlp.down_proj',
        'model.layers.1.self_attn.q_proj',
        'model.layers.1.self_attn.k_proj',
        'model.layers.1.self_attn.v_proj',
        'model.layers.1.self_attn.o_proj',
        'model.layers.1.mlp.gate_proj',
        'model.layers.1.mlp.up_proj',
      ]); // the exclusion makes the short names ambiguous: full names are recorded
      const reference = trainer.reference('ref');
      const start = flat(await reference.score(PAIRS));
      expect(flat(await trainer.score(PAIRS))).toEqual(start);
      const first = await trainer.step({ pairs: PAIRS }, nll);
      expect(first.step).toBe(1);
      expect(first.gradNorm).toBeGreaterThan(0);
      const second = await trainer.step({ pairs: PAIRS }, nll);
      expect(second.loss).toBeLessThan(first.loss);
      expect(flat(await reference.score(PAIRS))).toEqual(start);
      reference.dispose();

      const adapter = await trainer.exportAdapter('/models/tiny');
      expect(adapter.settings.baseModel).toBe('/models/tiny');
      expect(Object.keys(adapter.tensors)).toHaveLength(13 * 2);
      const a = adapter.tensors['base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight']!;
      const b = adapter.tensors['base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight']!;
      expect([a.shape, b.shape]).toEqual([
        [4, 32],
        [32, 4],
      ]);
      expect(Math.max(...Array.from(a.data, Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(32) + 2 * OPTIMIZER.lr); // kaiming-uniform(a=sqrt(5)), then two Adam steps
      expect(Math.max(...Array.from(b.data, Math.abs))).toBeGreaterThan(0); // B moved from zero
      const exported = await trainer.exportWeights('v2');
      const hostMerged = mergeAdapter(base, adapter);
      for (const [name, t] of Object.entries(base.params)) {
        const got = exported.params[name]!.data;
        const changed = name.endsWith('_proj.weight') && name !== 'model.layers.1.mlp.down_proj.weight';
        if (!changed) expect(Array.from(got), name).toEqual(Array.from(t.data));
        else {
          const want = hostMerged.params[name]!.data;
          let worst = 0;
          for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
          expect(worst, name).toBeLessThan(1e-6);
          expect(Array.from(got), name).not.toEqual(Array.from(t.data));
        }
      }
      const snapshot = await trainer.snapshot('v2');
      expect(flat(await snapshot.score(PAIRS))).toEqual(flat(await trainer.score(PAIRS)));
      snapshot.dispose();
    } finally {
      trainer.dispose();
    }
  });

  it('optimizer state round-trips under the torch engine parameter names; resuming gives the same next step', async () => {
    const settings = { ...SETTINGS, targetModules: ['q_proj', 'v_proj'], excludeModules: null };
    const a = await LoraTrainer.create(base, OPTIMIZER, settings, { seed: 1 });
    const b = await LoraTrainer.create(base, OPTIMIZER, settings, { seed: 1 });
    try {
      await a.step({ pairs: PAIRS }, nll);
      const state = await a.exportOptimizerState();
      const names = Object.keys(decodeSafetensors(state).tensors).sort();
      expect(names).toContain('m.model.layers.0.self_attn.q_proj.lora_A.weight');
      expect(names).toContain('v.model.layers.1.self_attn.v_proj.lora_B.weight');
      expect(names).toHaveLength(2 * 2 * 2 * 2);
      // b takes a's adapters and optimizer state, then both take the same step.
      const resumed = await LoraTrainer.create(base, OPTIMIZER, settings, { adapter: await a.exportAdapter() });
      try {
        await resumed.importOptimizerState(state);
        expect(resumed.updates).toBe(1);
        const next = await a.step({ pairs: PAIRS }, nll);
        const again = await resumed.step({ pairs: PAIRS }, nll);
        expect(again.gradNorm).toBeCloseTo(next.gradNorm, 6);
        expect(flat(await resumed.score(PAIRS))).toEqual(flat(await a.score(PAIRS)));
      } finally {
        resumed.dispose();
      }
      expect(b.updates).toBe(0);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('frees every tensor it allocates across steps, snapshots, references and exports', async () => {
    const live = await trackLiveBuffers();
    const trainer = await LoraTrainer.create(base, OPTIMIZER, SETTINGS, { seed: 2 });
    try {
      const work = async () => {
        await trainer.step({ pairs: PAIRS }, nll);
        await trainer.score(PAIRS);
        (await trainer.snapshot('tmp')).dispose();
        trainer.reference('ref').dispose();
        await trainer.exportAdapter();
        await trainer.exportWeights('tmp');
        await trainer.importOptimizerState(await trainer.exportOptimizerState());
      };
      await work();
      const before = live();
      for (let i = 0; i < 3; i++) await work();
      expect(live()).toBe(before);
    } finally {
      trainer.dispose();
    }
  });

  it('refuses dropout (the merged forward has none) and an adapter that does not fit the model', async () => {
    await expect(LoraTrainer.create(base, OPTIMIZER, { ...SETTINGS, loraDropout: 0.1 })).rejects.toThrow(
      'lora_dropout: the jax engine trains LoRA without dropout',
    );
    await expect(LoraTrainer.create(base, OPTIMIZER, { ...SETTINGS, targetModules: ['c_attn'] })).rejects.toThrow(
      'lora: target_modules: "c_attn" is not a module',
    );
    await expect(LoraTrainer.create(base, OPTIMIZER, SETTINGS, { adapter: { settings: SETTINGS, tensors: {} } })).rejects.toThrow(
      'tensor missing from the adapter',
    );
  });
});
