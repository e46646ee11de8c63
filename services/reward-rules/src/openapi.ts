import { buildOpenApiDocument, packageDefaultPort, type DocInfo } from '@rl/service-kit';
import { routes } from './http.ts';
import { SERVICE_NAME } from './subjects.ts';

/** Identity of this service in its OpenAPI document and `nats micro info`. */
export const DOC_INFO: DocInfo = {
  service: SERVICE_NAME,
  version: '0.1.0',
  defaultPort: packageDefaultPort(new URL('../package.json', import.meta.url)),
  description:
    'Rule rewards with verl semantics (gsm8k, MATH, DAPO/Minerva, Search-R1 QA EM/SubEM, geometry3k) and verl’s data_source dispatch. Same batch contract on HTTP and on NATS subject `reward.rules.score`.',
};

/** This service's OpenAPI 3.1 document. */
export function openApiDocument(): object {
  return buildOpenApiDocument(routes, DOC_INFO);
}
