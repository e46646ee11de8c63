import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';
import { RewardModelsEnv } from './models/reward-model-spec.ts';

/** REWARD_ROUTES: `data_source=backend[,data_source=backend]`, `*=backend` mapping every other data source. */
const RoutesEnv = z
  .string()
  .default('')
  .transform((text, ctx): Record<string, string> => {
    const routes: Record<string, string> = {};
    for (const entry of text.split(',').map((e) => e.trim())) {
      if (entry === '') continue;
      const eq = entry.lastIndexOf('=');
      const source = eq < 0 ? '' : entry.slice(0, eq);
      const name = eq < 0 ? '' : entry.slice(eq + 1);
      if (source === '' || name === '') {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(entry)}: each entry is data_source=backend (or *=backend)` });
        return z.NEVER;
      }
      if (Object.hasOwn(routes, source)) {
        ctx.addIssue({ code: 'custom', message: `${source}: mapped twice` });
        return z.NEVER;
      }
      routes[source] = name;
    }
    return routes;
  });

/** Environment of the reward-model service. Nothing configured is valid: every item is then an error saying so. */
export const RewardModelConfig = BaseConfig.extend({
  /** HTTP port. @default 8106 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8106),
  /** Reward models loaded at start-up: `name=DIR[,name=DIR]`, `name=torch:DIR` on the PyTorch engine, `name=onnx:DIR` (DIR/model.onnx) on onnxruntime, `name=vllm:http://host:port/SERVED_NAME?tokenizer=DIR` on a vLLM server. @default none */
  REWARD_MODELS: RewardModelsEnv,
  /** A YAML file of LLM judges (see judges/*.yaml). @default none */
  REWARD_JUDGES_FILE: z.string().min(1).optional(),
  /** Data sources mapped to a backend: `data_source=name[,...]`, `*=name` for every other one. @default none */
  REWARD_ROUTES: RoutesEnv,
  /** Padded tokens (rows x longest row) per reward-model forward pass. @default 16384 */
  REWARD_MODEL_MAX_BATCH_TOKENS: z.coerce.number().int().min(64).max(16_777_216).default(16_384),
  /** Device of the PyTorch engine's reward models. @default auto (CUDA when torch sees a GPU) */
  REWARD_MODEL_TORCH_DEVICE: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  /** onnxruntime's intra-op threads per `onnx:` model. @default the machine's available parallelism */
  REWARD_MODEL_ONNX_THREADS: z.coerce.number().int().min(1).max(1024).optional(),
  /** Per-attempt time limit of a vLLM `/classify` request (each item retries 3 times on a time-out, 429, 5xx or refused connection). @default 60000 */
  REWARD_MODEL_VLLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
});
/** Parsed configuration of the reward-model service. */
export type RewardModelConfig = z.infer<typeof RewardModelConfig>;
