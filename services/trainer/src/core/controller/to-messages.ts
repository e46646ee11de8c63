// The chat messages of a dataset row, as verl hands them to its rollout: the
// generation service takes them as they are, the embedded rollout applies the
// tokenizer's chat template to them.
import type { DatasetRow } from '../../data/dataset-row.ts';

/** verl-format messages for the generation service (a plain-text prompt becomes one user message). */
export function toMessages(row: Pick<DatasetRow, 'prompt'>): Array<{ role: string; content: string }> {
  return typeof row.prompt === 'string' ? [{ role: 'user', content: row.prompt }] : row.prompt.map((m) => ({ role: m.role, content: m.content }));
}
