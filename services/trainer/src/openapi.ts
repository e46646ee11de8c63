import { buildOpenApiDocument, packageDefaultPort, type DocInfo } from '@rl/service-kit';
import { routes } from './http.ts';

/** Identity of this service in its OpenAPI document and `nats micro info`. */
export const DOC_INFO: DocInfo = {
  service: 'trainer',
  version: '0.1.0',
  defaultPort: packageDefaultPort(new URL('../package.json', import.meta.url)),
  description:
    'GRPO/PPO-family training controller: verl-style job configs, rollouts from the generation service, rewards from the reward services, updates on a policy worker process; per-step metrics as JSON or server-sent events, events on NATS `trainer.events.<job>`, checkpoints with automatic resume, SVG plots.',
};

/** This service's OpenAPI 3.1 document. */
export function openApiDocument(): object {
  return buildOpenApiDocument(routes, DOC_INFO);
}
