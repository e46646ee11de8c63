import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobConfigInput } from './job-config.ts';
import { parseJobConfig } from './load-job-config.ts';
import { allKeyPaths } from './schema-keys.ts';

const DOC = readFileSync(join(import.meta.dirname, '../../CONFIG.md'), 'utf8');

describe('CONFIG.md', () => {
  it('documents every key of the schema by its full path', () => {
    const missing = allKeyPaths(JobConfigInput)
      .map((p) => p.join('.'))
      .filter((path) => !DOC.includes(`\`${path}\``));
    expect(missing).toEqual([]);
  });

  it('has an example that validates', () => {
    const example = /```yaml\n([\s\S]*?)```/.exec(DOC)?.[1];
    expect(example).toBeDefined();
    const c = parseJobConfig(example as string);
    expect(c.algorithm.adv_estimator).toBe('grpo');
    expect(c.actor_rollout_ref.model.max_seq_len).toBe(48);
  });
});
