// The hostile-input vectors of hostile-input.test.ts run in this process
// against the code that reads client-chosen keys (the trainer's config and
// override path, reward-rules' batch path, generation's YAML configs), so
// Object.prototype itself can be checked after every one: each vector is
// either handled or refused with a 4xx AppError, and leaves no trace there.
import { AppError, parseJsonText } from '@rl/service-kit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseToolConfig } from '../services/generation/src/core/tools/tool-config.ts';
import { closeBatch, openBatch, scoreBatchItem } from '../services/reward-rules/src/core/score-batch.ts';
import { validateJobConfig } from '../services/trainer/src/config/index.ts';
import { PROBE_KEY, hostileBodies, hostileOverrides, type Json } from './support/hostile-vectors.ts';

let prototypeNames: string[];
beforeAll(() => {
  prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
});
afterEach(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(PROBE_KEY in {}).toBe(false);
});

const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : new TextDecoder().decode(body));

/** Runs `fn`; an exception must be a 4xx AppError (a refusal), anything else fails the test. */
function handledOrRefused(fn: () => unknown, what: string): void {
  try {
    fn();
  } catch (err) {
    expect(err, what).toBeInstanceOf(AppError);
    expect((err as AppError).status, `${what}: ${(err as AppError).message}`).toBeLessThan(500);
  }
}

const CONFIG: Json = {
  data: { train_files: 'train.parquet', train_batch_size: 4 },
  trainer: { total_training_steps: 1 },
  reward: { params: { gsm8k: { method: 'strict' } } },
};

describe('trainer config and overrides, in process', () => {
  it.each(hostileBodies(CONFIG, 64 * 1024).map((v) => [v.name, v] as const))('config with %s', (name, v) => {
    handledOrRefused(() => validateJobConfig(parseJsonText(text(v.body)), ['trainer.experiment_name=x']), name);
  });

  it.each(hostileOverrides().map((v) => [v.name, v] as const))('overrides with %s', (name, v) => {
    handledOrRefused(() => validateJobConfig(structuredClone(CONFIG), v.overrides), name);
  });
});

describe('reward-rules batch, in process', () => {
  const GSM8K: Json = {
    items: [
      { data_source: 'openai/gsm8k', solution_str: 'She pays 18. #### 18', ground_truth: '18', extra_info: { split: 'test' }, params: { method: 'strict' } },
    ],
  };
  it.each(hostileBodies(GSM8K, 64 * 1024).map((v) => [v.name, v] as const))('score request with %s', (name, v) => {
    handledOrRefused(() => {
      const state = openBatch(text(v.body), 5_000);
      state.items.forEach((_, i) => scoreBatchItem(state, i));
      return closeBatch(state);
    }, name);
  });
});

describe('generation tool config YAML, in process', () => {
  const bomb = [
    'a: &a [x, x, x, x, x, x, x, x, x, x]',
    ...Array.from(
      { length: 8 },
      (_, i) =>
        `l${i}: &l${i} [${Array(10)
          .fill(i === 0 ? '*a' : `*l${i - 1}`)
          .join(', ')}]`,
    ),
  ];
  it.each([
    [
      '__proto__ keys',
      `__proto__: {${PROBE_KEY}: 1}\ntools: [{class_name: CalculatorTool, __proto__: {${PROBE_KEY}: 1}, config: {__proto__: {${PROBE_KEY}: 1}}}]`,
    ],
    ['constructor.prototype keys', `tools: [{class_name: CalculatorTool, constructor: {prototype: {${PROBE_KEY}: 1}}}]`],
    ['merge keys', `tools: [{<<: {__proto__: {${PROBE_KEY}: 1}}, class_name: CalculatorTool}]`],
    ['an alias bomb', bomb.join('\n')],
    ['nesting 5000 deep', `tools: ${'['.repeat(5_000)}${']'.repeat(5_000)}`],
  ])('a tool config with %s', (name, yaml) => {
    try {
      parseToolConfig(yaml, 'tools.yaml');
    } catch (err) {
      // A config file is the operator's: a bad one is invalid_config (it stops the service at start-up), never a crash.
      expect(err, name).toBeInstanceOf(AppError);
      expect((err as AppError).message, name).toMatch(/^tools\.yaml/);
    }
  });
});
