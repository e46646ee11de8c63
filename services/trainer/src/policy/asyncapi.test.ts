import { readFileSync } from 'node:fs';
import { toYaml } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import { policyAsyncApiDocument } from './asyncapi.ts';

describe('checked-in AsyncAPI document of the policy worker protocol', () => {
  it('matches what the zod schemas generate (run `make openapi` after changing protocol.ts)', () => {
    expect(readFileSync(new URL('../../../../openapi/policy-worker.asyncapi.yaml', import.meta.url), 'utf8')).toBe(toYaml(policyAsyncApiDocument()));
  });
});
