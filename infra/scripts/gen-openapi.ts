// `make openapi`: for every service that exports openApiDocument() from
// src/openapi.ts, writes openapi/<service>.yaml and the TypeScript types a
// client generates from it (openapi-typescript) to openapi/types/<service>.ts.
// The drift tests compare the checked-in files with the same output.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toYaml } from '@rl/service-kit';
import { renderOpenApiArtifacts } from './openapi-artifacts.ts';

const ROOT = resolve(import.meta.dirname, '../..');
mkdirSync(join(ROOT, 'openapi/types'), { recursive: true });
for (const name of readdirSync(join(ROOT, 'services'))) {
  const file = join(ROOT, 'services', name, 'src/openapi.ts');
  if (!existsSync(file)) continue;
  const mod = (await import(pathToFileURL(file).href)) as { openApiDocument(): object };
  const { yaml, types } = await renderOpenApiArtifacts(mod.openApiDocument());
  for (const [out, text] of [
    [join(ROOT, 'openapi', `${name}.yaml`), yaml],
    [join(ROOT, 'openapi/types', `${name}.ts`), types],
  ] as const) {
    writeFileSync(out, text);
    console.log(`wrote ${out}`);
  }
}

// The trainer's policy worker speaks NATS only: its protocol is an AsyncAPI document.
const { policyAsyncApiDocument } = (await import(pathToFileURL(join(ROOT, 'services/trainer/src/policy/asyncapi.ts')).href)) as {
  policyAsyncApiDocument(): object;
};
const asyncapi = join(ROOT, 'openapi', 'policy-worker.asyncapi.yaml');
writeFileSync(asyncapi, toYaml(policyAsyncApiDocument()));
console.log(`wrote ${asyncapi}`);
