import { buildOpenApiDocument, packageDefaultPort, type DocInfo } from '@rl/service-kit';
import { routes } from './http.ts';
import { SERVICE_NAME } from './subjects.ts';

/** Identity of this service in its OpenAPI document and `nats micro info`. */
export const DOC_INFO: DocInfo = {
  service: SERVICE_NAME,
  version: '0.1.0',
  defaultPort: packageDefaultPort(new URL('../package.json', import.meta.url)),
  description:
    'Embedding-based rewards for multi-turn story generation (relevance, coherence, non-repetition, beyond-reference, information flow, format), ONNX embeddings. Same batch contract on HTTP and on NATS subject `reward.story.score`.',
};

/** This service's OpenAPI 3.1 document. */
export function openApiDocument(): object {
  return buildOpenApiDocument(routes, DOC_INFO);
}
