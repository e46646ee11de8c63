import { fileURLToPath } from 'node:url';
import type { ModelConfigInput } from '@rl/policy';
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';

const DEFAULT_POLICY_INIT = '{"architecture":"Qwen3ForCausalLM","dModel":64,"nLayers":2,"nHeads":4,"dFF":128,"maxSeqLen":4096}';
const shipped = (name: string) => fileURLToPath(new URL(`../config/${name}`, import.meta.url));
const optionalText = z.string().trim().min(1).optional();

/** Environment of the generation service. */
export const GenerationConfig = BaseConfig.extend({
  /** HTTP port. @default 8104 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8104),
  /** Inference backend: the embedded policy, an OpenAI-compatible server, or a script (tests, demos). @default 'embedded' */
  GENERATION_BACKEND: z.enum(['embedded', 'openai', 'scripted']).default('embedded'),
  /** Name served by `/v1/models` and reported with rollouts. @default 'rl-policy' (embedded) or OPENAI_MODEL */
  MODEL_NAME: optionalText,

  /**
   * Embedded: the model to serve: a Hugging Face model directory (config.json, model.safetensors or a sharded
   * model.safetensors.index.json, F32/BF16/F16, tokenizer files with the chat template, generation_config.json),
   * or a weights file this project writes (safetensors with its config and tokenizer in the metadata).
   */
  POLICY_PATH: optionalText,
  /**
   * JetStream Object Store bucket the trainer publishes versions to, watched: the embedded backend hot-swaps each new
   * version; the OpenAI backend with INFERENCE_SYNC hands it to the inference server.
   */
  POLICY_OBJECT_STORE: optionalText,
  /** Object name inside the bucket. @default 'policy' */
  POLICY_OBJECT_NAME: z.string().trim().min(1).default('policy'),
  /** Embedded: seed of the untrained model used when no weights are configured. @default 0 */
  POLICY_SEED: z.coerce.number().int().min(0).default(0),
  /**
   * Embedded: shape of the untrained model used when no weights are configured: JSON of the policy's ModelConfig
   * without vocabSize (the byte tokenizer's): `architecture` (LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM),
   * dModel, nLayers, nHeads, nKvHeads, headDim, dFF, maxSeqLen, ropeTheta, ropeScaling, normEps, tieEmbeddings,
   * attentionBias, mlpBias. @default a tiny Qwen3: {"architecture":"Qwen3ForCausalLM","dModel":64,"nLayers":2,"nHeads":4,"dFF":128,"maxSeqLen":4096}
   */
  POLICY_INIT: z
    .string()
    .default(DEFAULT_POLICY_INIT)
    .transform((text, ctx) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object (a ModelConfig without vocabSize)' });
        return z.NEVER;
      }
      // Checked field by field when the model is built, with errors naming POLICY_INIT.
      return value as Omit<ModelConfigInput, 'vocabSize'>;
    }),
  /** Embedded: most prompts per forward batch. @default 64 */
  EMBEDDED_MAX_BATCH: z.coerce.number().int().min(1).max(4096).default(64),
  /**
   * Embedded: most attention per forward batch, as the sum over rows of
   * (prompt + new tokens)^2: attention memory grows with rows x length^2, so a
   * 2000-token prompt runs alone while 64 short ones share a batch. @default 4194304 (one 2048-token row)
   */
  EMBEDDED_MAX_BATCH_ATTENTION: z.coerce
    .number()
    .int()
    .min(1)
    .default(2048 * 2048),

  /** OpenAI backend: base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  OPENAI_BASE_URL: z.url().optional(),
  /** OpenAI backend: bearer token, if the server wants one. */
  OPENAI_API_KEY: optionalText,
  /** OpenAI backend: model name to request. */
  OPENAI_MODEL: optionalText,
  /**
   * OpenAI backend: `tokens` uses `/v1/completions` with token-id prompts, log-probs and
   * `return_tokens_as_token_ids` plus `/tokenize` (vLLM); `chat` uses `/v1/chat/completions`, text only.
   * @default 'tokens'
   */
  OPENAI_MODE: z.enum(['tokens', 'chat']).default('tokens'),
  /** OpenAI backend: deadline of one HTTP request. @default 120000 */
  OPENAI_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** OpenAI backend: retries after a 5xx, 429 or connection error. @default 3 */
  OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).max(20).default(3),
  /** OpenAI backend: first retry delay, doubled each time. @default 200 */
  OPENAI_RETRY_BASE_MS: z.coerce.number().int().min(1).default(200),
  /** OpenAI backend: requests in flight at once. @default 64 */
  OPENAI_CONCURRENCY: z.coerce.number().int().min(1).max(4096).default(64),
  /**
   * OpenAI backend: how each version published to POLICY_OBJECT_STORE reaches the server before the next rollout.
   * `sglang`: a Hugging Face directory, then SGLang's `POST /update_weights_from_disk`; `vllm`: a Hugging Face
   * directory, then vLLM's `POST /collective_rpc` `reload_weights` with `weights_path` (server started with
   * VLLM_SERVER_DEV_MODE=1) and `POST /reset_prefix_cache`; `vllm-lora`: a PEFT adapter directory, then vLLM's
   * `POST /v1/load_lora_adapter` (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True) and rollouts request that adapter by name;
   * `none`: the server's weights are not managed. @default 'none'
   */
  INFERENCE_SYNC: z.enum(['none', 'sglang', 'vllm', 'vllm-lora']).default('none'),
  /** INFERENCE_SYNC: directory this service writes versions to, at a path the inference server reads too. */
  INFERENCE_SYNC_DIR: optionalText,
  /** INFERENCE_SYNC: deadline of one call that loads weights into the server. @default 600000 */
  INFERENCE_SYNC_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),

  /** Scripted backend: JSON script file (`{"rules": [{"contains"?, "replies": [...]}]}`). */
  GENERATION_SCRIPT: optionalText,

  /** Tool config in verl's format. @default the service's config/tool_config.yaml */
  TOOL_CONFIG_PATH: z.string().trim().min(1).default(shipped('tool_config.yaml')),
  /** Interaction config in verl's format. @default the service's config/interaction_config.yaml */
  INTERACTION_CONFIG_PATH: z.string().trim().min(1).default(shipped('interaction_config.yaml')),
  /** Deadline of a tool call or interaction reply when its config sets no `timeout_ms`. @default 30000 */
  TOOL_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),

  /** Trajectories in flight at once, across requests. @default 256 */
  ROLLOUT_CONCURRENCY: z.coerce.number().int().min(1).max(65_536).default(256),
  /** Default of `limits.max_prompt_tokens`. @default 4096 */
  ROLLOUT_MAX_PROMPT_TOKENS: z.coerce.number().int().min(1).default(4096),
  /** Default of `limits.max_response_tokens` (verl's `response_length`). @default 1024 */
  ROLLOUT_MAX_RESPONSE_TOKENS: z.coerce.number().int().min(1).default(1024),
})
  .refine((c) => c.GENERATION_BACKEND !== 'openai' || c.OPENAI_BASE_URL !== undefined, {
    message: 'required when GENERATION_BACKEND=openai',
    path: ['OPENAI_BASE_URL'],
  })
  .refine((c) => c.GENERATION_BACKEND !== 'scripted' || c.GENERATION_SCRIPT !== undefined, {
    message: 'required when GENERATION_BACKEND=scripted',
    path: ['GENERATION_SCRIPT'],
  })
  .refine((c) => c.INFERENCE_SYNC === 'none' || (c.GENERATION_BACKEND === 'openai' && c.OPENAI_MODE === 'tokens'), {
    message: 'needs GENERATION_BACKEND=openai with OPENAI_MODE=tokens (a server serving token ids and log-probs)',
    path: ['INFERENCE_SYNC'],
  })
  .refine((c) => c.INFERENCE_SYNC === 'none' || c.POLICY_OBJECT_STORE !== undefined, {
    message: 'required when INFERENCE_SYNC is set (the bucket the trainer publishes versions to)',
    path: ['POLICY_OBJECT_STORE'],
  })
  .refine((c) => c.INFERENCE_SYNC === 'none' || c.INFERENCE_SYNC_DIR !== undefined, {
    message: 'required when INFERENCE_SYNC is set (a directory the inference server reads)',
    path: ['INFERENCE_SYNC_DIR'],
  })
  .refine((c) => c.POLICY_PATH === undefined || c.POLICY_OBJECT_STORE === undefined, {
    message: 'set POLICY_PATH or POLICY_OBJECT_STORE, not both',
    path: ['POLICY_OBJECT_STORE'],
  });
/** Parsed configuration of the generation service. */
export type GenerationConfig = z.infer<typeof GenerationConfig>;
