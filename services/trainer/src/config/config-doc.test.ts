import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobConfigInput } from './job-config.ts';
import { parseJobConfig, parseRlJobConfig } from './load-job-config.ts';
import { allKeyPaths } from './schema-keys.ts';
import { SftJobConfigInput } from './sft-config.ts';

const DOC = readFileSync(join(import.meta.dirname, '../../CONFIG.md'), 'utf8');
const SFT_HEADING = '## SFT jobs (`kind: sft`)';
const RL_DOC = DOC.slice(0, DOC.indexOf(SFT_HEADING));
const SFT_DOC = DOC.slice(DOC.indexOf(SFT_HEADING));
const undocumented = (schema: Parameters<typeof allKeyPaths>[0], doc: string) =>
  allKeyPaths(schema)
    .map((p) => p.join('.'))
    .filter((path) => !doc.includes(`\`${path}\``));
const examples = (doc: string) => [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('CONFIG.md', () => {
  it('documents every key of the RL schema by its full path, before the SFT section', () => {
    expect(DOC.includes(SFT_HEADING)).toBe(true);
    expect(undocumented(JobConfigInput, RL_DOC)).toEqual([]);
  });

  it('documents every key of the SFT schema in the SFT section', () => {
    expect(undocumented(SftJobConfigInput, SFT_DOC)).toEqual([]);
  });

  it('has examples that validate', () => {
    const c = parseRlJobConfig(examples(RL_DOC)[0]!);
    expect(c.algorithm.adv_estimator).toBe('grpo');
    expect(c.actor_rollout_ref.model.max_seq_len).toBe(48);
    const sft = parseJobConfig(examples(SFT_DOC)[0]!);
    expect(sft.kind).toBe('sft');
  });
});
