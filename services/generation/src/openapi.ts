import { buildOpenApiDocument, packageDefaultPort, type DocInfo } from '@rl/service-kit';
import { routes } from './http.ts';
import { SERVICE_NAME } from './subjects.ts';

/** Identity of this service in its OpenAPI document and `nats micro info`. */
export const DOC_INFO: DocInfo = {
  service: SERVICE_NAME,
  version: '0.1.0',
  defaultPort: packageDefaultPort(new URL('../package.json', import.meta.url)),
  description:
    'Rollouts for RL training: verl’s single-turn and tool agent loops (Hermes tool calls, tools, interactions) over an inference backend (the embedded policy or an OpenAI-compatible server), returning token ids, masks, log-probs and turn rewards. Same batch contract on HTTP and on NATS subject `rollout.generate`; OpenAI-compatible endpoints serve the model too.',
};

/** This service's OpenAPI 3.1 document. */
export function openApiDocument(): object {
  return buildOpenApiDocument(routes, DOC_INFO);
}
