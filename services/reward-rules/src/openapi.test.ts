import { readFileSync } from 'node:fs';
import { toYaml } from '@rl/shared';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.ts';

describe('openapi/reward-rules.yaml', () => {
  it('matches what the zod route definitions generate (run `make openapi` after changing a schema)', () => {
    const checkedIn = readFileSync(new URL('../../../openapi/reward-rules.yaml', import.meta.url), 'utf8');
    expect(checkedIn).toBe(toYaml(openApiDocument()));
  });
});
