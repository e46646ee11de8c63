import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';
import { DEFAULT_WEIGHTS, mergeWeights, PartialWeights } from './core/weights.ts';
import { DEFAULT_FORMAT_CACHE_ENTRIES } from './core/format/format-checker.ts';
import { DEFAULT_TUNING, type RewardSettings } from './core/tuning.ts';

/** The model shipped with the package (built by scripts/build-default-model.ts). */
export const DEFAULT_MODEL_DIR = fileURLToPath(new URL('../models/default', import.meta.url));

const positive = (def: number) => z.coerce.number().gt(0).max(1_000).default(def);
const unit = (def: number) => z.coerce.number().min(0).max(1).default(def);

/** `STORY_WEIGHTS`: JSON text of a partial weight table, laid over {@link DEFAULT_WEIGHTS}. */
const WeightsFromJson = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"relevance": 0.5, "format": 0}' });
      return z.NEVER;
    }
  })
  .pipe(PartialWeights)
  .transform((w) => mergeWeights(DEFAULT_WEIGHTS, w))
  .refine((w) => Object.values(w).some((x) => x > 0), { message: 'at least one weight must be above 0' });

/** Environment of the story-reward service. */
export const RewardStoryConfig = BaseConfig.extend({
  /** HTTP port. @default 8103 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8103),
  /** Embedding model directory (`model.onnx` + `tokenizer.json`, sentence-transformers layout). @default the shipped `models/default` */
  STORY_MODEL_DIR: z.string().min(1).default(DEFAULT_MODEL_DIR),
  /** Component weights as JSON, partial: the rest keep their defaults (see README). @default {} */
  STORY_WEIGHTS: WeightsFromJson,
  /** Most texts in one model run. @default 32 */
  STORY_MAX_BATCH: z.coerce.number().int().min(1).max(4096).default(32),
  /** How long a lone embedding request waits for others to share its model run. @default 2 */
  STORY_BATCH_WINDOW_MS: z.coerce.number().min(0).max(1_000).default(2),
  /** onnxruntime intra-op threads. @default the number of CPU cores */
  STORY_INTRA_OP_THREADS: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
  /** Texts whose embeddings are kept (LRU); 0 disables the cache. @default 4096 */
  STORY_CACHE_ENTRIES: z.coerce.number().int().min(0).max(10_000_000).default(4096),
  /** Compiled output-format specs kept (LRU). @default 256 */
  STORY_FORMAT_CACHE_ENTRIES: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_FORMAT_CACHE_ENTRIES),
  /** History turns coherence compares with. @default 4 */
  STORY_RECENT_TURNS: z.coerce.number().int().min(0).max(1_024).default(DEFAULT_TUNING.recentTurns),
  /** Cosine above which a reply counts as a near-copy of an earlier reply or the reference. @default 0.9 */
  STORY_COPY_COSINE: unit(DEFAULT_TUNING.copyCosine),
  /** Word-trigram overlap above which a reply counts as a copy. @default 0.5 */
  STORY_COPY_OVERLAP: unit(DEFAULT_TUNING.copyOverlap),
  /** Temperature of the beyond_reference sigmoid. @default 0.1 */
  STORY_REFERENCE_TEMPERATURE: positive(DEFAULT_TUNING.referenceTemperature),
  /** Share of the reference's length below which the brevity penalty applies. @default 0.5 */
  STORY_BREVITY_RATIO: unit(DEFAULT_TUNING.brevityRatio),
  /** Log-prob gain scale of info_gain, in nats per token. @default 0.5 */
  STORY_INFO_GAIN_SCALE_NATS: positive(DEFAULT_TUNING.infoGainScaleNats),
  /** Entropy scale of the entropy component, in nats. @default 1 */
  STORY_ENTROPY_SCALE_NATS: positive(DEFAULT_TUNING.entropyScaleNats),
});
/** Parsed configuration of the story-reward service. */
export type RewardStoryConfig = z.infer<typeof RewardStoryConfig>;

/** The reward's weights and formula constants from the parsed configuration. */
export function rewardSettings(config: RewardStoryConfig): RewardSettings {
  return {
    weights: Object.freeze(config.STORY_WEIGHTS),
    tuning: Object.freeze({
      recentTurns: config.STORY_RECENT_TURNS,
      copyCosine: config.STORY_COPY_COSINE,
      copyOverlap: config.STORY_COPY_OVERLAP,
      referenceTemperature: config.STORY_REFERENCE_TEMPERATURE,
      brevityRatio: config.STORY_BREVITY_RATIO,
      infoGainScaleNats: config.STORY_INFO_GAIN_SCALE_NATS,
      entropyScaleNats: config.STORY_ENTROPY_SCALE_NATS,
    }),
  };
}
