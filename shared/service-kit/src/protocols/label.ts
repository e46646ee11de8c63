import { z } from '@hono/zod-openapi';
import { GroundTruth, MAX_DATA_SOURCE_CHARS, ScoreParams, type ScoreItem } from '../schemas/score.ts';

/**
 * A label that says how to score its sample: the fields of our `ScoreItem`
 * besides the response. OpenRLHF's `labels[i]` and slime's `label` may be such
 * an object, or its JSON text; any other label is the ground truth itself.
 * `reward_model.ground_truth` (a verl row) is read when `ground_truth` is absent.
 */
const LabelObject = z
  .object({
    data_source: z.string().min(1).max(MAX_DATA_SOURCE_CHARS),
    ground_truth: GroundTruth.optional(),
    reward_model: z.looseObject({ ground_truth: GroundTruth.optional() }).optional(),
    extra_info: z.record(z.string(), z.unknown()).nullable().optional(),
    params: ScoreParams.optional(),
  })
  .openapi('LabelObject', {
    description: 'A label that picks its scorer: `data_source` plus the other ScoreItem fields. Also accepted as JSON text.',
    example: { data_source: 'openai/gsm8k', ground_truth: '18', params: { method: 'flexible' } },
  });

/** The object a label carries when it names a `data_source` (as an object or as JSON text), else undefined. */
function labelObjectCandidate(label: unknown): Record<string, unknown> | undefined {
  let value = label;
  if (typeof label === 'string' && label.trimStart().startsWith('{')) {
    try {
      value = JSON.parse(label);
    } catch {
      return undefined; // not JSON: a plain ground truth that happens to start with "{"
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('data_source' in value)) return undefined;
  return value as Record<string, unknown>;
}

/**
 * zod schema of one label: any JSON value, but one that carries `data_source`
 * must be a valid {@link LabelObject}; its failures name the field under the
 * label's own path (`labels[3].params.method`).
 */
export const Label = z
  .unknown()
  .superRefine((label, ctx) => {
    const candidate = labelObjectCandidate(label);
    if (candidate === undefined) {
      const plain = GroundTruth.safeParse(label === undefined ? null : label);
      for (const issue of plain.success ? [] : plain.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      return;
    }
    const parsed = LabelObject.safeParse(candidate);
    for (const issue of parsed.success ? [] : parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  })
  .openapi({ description: 'The ground truth (any JSON value), or a LabelObject (or its JSON text) that also picks the data source.' });

/** The scoring fields of a label already validated by {@link Label}. */
export type LabelFields = Omit<ScoreItem, 'solution_str' | 'data_source'> & { data_source?: string };

/** Reads a validated label: its own data source and options when it carries them, else it is the ground truth. */
export function readLabel(label: unknown): LabelFields {
  const candidate = labelObjectCandidate(label);
  if (candidate === undefined) return { ground_truth: label ?? null };
  const obj = LabelObject.parse(candidate);
  const fields: LabelFields = { data_source: obj.data_source, ground_truth: obj.ground_truth ?? obj.reward_model?.ground_truth ?? null };
  if (obj.extra_info !== undefined) fields.extra_info = obj.extra_info;
  if (obj.params !== undefined) fields.params = obj.params;
  return fields;
}
