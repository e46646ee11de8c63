import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderOpenApiArtifacts } from '../../../infra/scripts/openapi-artifacts.ts';
import { openApiDocument } from './openapi.ts';

describe('checked-in OpenAPI artifacts of reward-model', () => {
  it('match what the zod route definitions generate (run `make openapi` after changing a schema)', async () => {
    const { yaml, types } = await renderOpenApiArtifacts(openApiDocument());
    expect(readFileSync(new URL('../../../openapi/reward-model.yaml', import.meta.url), 'utf8')).toBe(yaml);
    expect(readFileSync(new URL('../../../openapi/types/reward-model.ts', import.meta.url), 'utf8')).toBe(types);
  });
});
