import { buildOpenApiDocument, packageDefaultPort, type DocInfo } from '@rl/service-kit';
import { routes } from './http.ts';
import { SERVICE_NAME } from './subjects.ts';

/** Identity of this service in its OpenAPI document and `nats micro info`. */
export const DOC_INFO: DocInfo = {
  service: SERVICE_NAME,
  version: '0.1.0',
  defaultPort: packageDefaultPort(new URL('../package.json', import.meta.url)),
  description:
    'Model-based rewards: trained reward models (one-label ...ForTokenClassification / ...ForSequenceClassification directories, on the embedded jax-js engine or the PyTorch engine) and LLM judges (OpenAI-compatible chat endpoints). Same batch contract on HTTP and on NATS subject `reward.model.score`.',
};

/** This service's OpenAPI 3.1 document. */
export function openApiDocument(): object {
  return buildOpenApiDocument(routes, DOC_INFO);
}
