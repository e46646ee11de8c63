// Wire schemas of the trainer's HTTP API (single source for validation, types and OpenAPI).
import { z } from '@hono/zod-openapi';

export const JobStateSchema = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).openapi('JobState');

export const JobViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    state: JobStateSchema,
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    step: z.number().int(),
    total_steps: z.number().int().nullable(),
    last_metrics: z.record(z.string(), z.number()).nullable(),
    last_validation: z.record(z.string(), z.number()).nullable(),
    error: z.string().nullable(),
  })
  .openapi('Job');

export const SubmitJobRequest = z
  .object({
    config: z.record(z.string(), z.unknown()).openapi({
      description:
        'verl-style job config (data, actor_rollout_ref, algorithm, trainer, reward, rollout); every key is documented in services/trainer/CONFIG.md',
    }),
    overrides: z.array(z.string().max(4096)).max(256).default([]).openapi({ description: 'Hydra-style `a.b.c=value` overrides applied before validation' }),
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
      .optional()
      .openapi({ description: 'Job id (also the NATS subject token); generated when absent' }),
  })
  .openapi('SubmitJobRequest');

export const JobIdParam = z.object({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
    .openapi({ param: { name: 'id', in: 'path' } }),
});

export const MetricsQuery = z.object({
  stream: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: '`true` (or `Accept: text/event-stream`) streams server-sent events: past steps first, then live ones, until the job ends' }),
});

export const JobMetricsResponse = z.object({ job: JobViewSchema, metrics: z.array(z.record(z.string(), z.number())) }).openapi('JobMetrics');

export const PlotsResponse = z.object({ files: z.array(z.string()) }).openapi('Plots');
