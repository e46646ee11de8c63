// `make openapi`: writes openapi/<service>.yaml for every service that exports
// openApiDocument() from src/openapi.ts. The drift test compares the same output.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toYaml } from '@rl/shared';

const ROOT = resolve(import.meta.dirname, '../..');
for (const name of readdirSync(join(ROOT, 'services'))) {
  const file = join(ROOT, 'services', name, 'src/openapi.ts');
  if (!existsSync(file)) continue;
  const mod = (await import(pathToFileURL(file).href)) as { openApiDocument(): object };
  const out = join(ROOT, 'openapi', `${name}.yaml`);
  writeFileSync(out, toYaml(mod.openApiDocument()));
  console.log(`wrote ${out}`);
}
