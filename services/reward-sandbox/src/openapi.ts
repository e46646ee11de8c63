import { buildOpenApiDocument, packageDefaultPort, type DocInfo } from '@rl/service-kit';
import { routes } from './http.ts';
import { SERVICE_NAME } from './subjects.ts';

/** Identity of this service in its OpenAPI document and `nats micro info`. */
export const DOC_INFO: DocInfo = {
  service: SERVICE_NAME,
  version: '0.1.0',
  defaultPort: packageDefaultPort(new URL('../package.json', import.meta.url)),
  description:
    'Code execution for rewards: SandboxFusion-compatible `/run_code` (also NATS `sandbox.run_code`) in a fresh bubblewrap sandbox per run (isolated-vm for plain JavaScript), and prime/sandbox_fusion-style pass-rate scoring on `/v1/score` and NATS `reward.sandbox.score`.',
};

/** This service's OpenAPI 3.1 document. */
export function openApiDocument(): object {
  return buildOpenApiDocument(routes, DOC_INFO);
}
