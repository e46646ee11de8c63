// zod with the OpenAPI metadata methods (`.openapi()`), without hono: the same
// extension @hono/zod-openapi applies to the same zod instance, so wire schemas
// built here document routes there, and pure cores (reward-rules' scoring
// workers) can validate with them without loading an HTTP framework.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
