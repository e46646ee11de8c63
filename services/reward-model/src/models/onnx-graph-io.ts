// Which inputs an exported reward model's ONNX graph takes and which output
// carries its score, read from the session's metadata. Accepted: optimum's
// exports of a decoder's `text-classification` (...ForSequenceClassification)
// and `token-classification` (...ForTokenClassification) tasks without past key
// values: int64 (or int32) `input_ids`, `attention_mask` and optionally
// `position_ids`; the output `logits`, [batch, sequence, 1] (a score per token,
// read here at each row's last id) or, for a sequence classifier only,
// [batch, 1] (pooled by the graph itself at the last non-pad token).
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ReadAt } from './read-position.ts';

/** Integer element types accepted for the token inputs. */
export type IdType = 'int64' | 'int32';

/** A token input the graph declares. */
export interface GraphInput {
  name: 'input_ids' | 'attention_mask' | 'position_ids';
  type: IdType;
}

/** The inputs to feed and the output to read. */
export interface RewardGraphIo {
  inputs: GraphInput[];
  output: string;
  /** `tokens`: [batch, sequence, 1], read at each row's last id. `pooled`: [batch, 1], one score per row. */
  kind: 'tokens' | 'pooled';
}

/** What the metadata of one input or output says (onnxruntime's `InferenceSession.ValueMetadata`). */
export type ValueMetadata = { name: string; isTensor: true; type: string; shape: ReadonlyArray<number | string> } | { name: string; isTensor: false };

const INPUTS = new Set<string>(['input_ids', 'attention_mask', 'position_ids']);

/** The graph's inputs and score output; a graph this service cannot feed or read is `invalid_config` naming `where` and the part. */
export function describeRewardGraph(
  meta: { inputMetadata: readonly ValueMetadata[]; outputMetadata: readonly ValueMetadata[] },
  readAt: ReadAt,
  where: string,
): RewardGraphIo {
  const refuse = (message: string) => new AppError(ErrorCode.InvalidConfig, `${where}: ${message}`);
  const inputs: GraphInput[] = [];
  for (const input of meta.inputMetadata) {
    if (!INPUTS.has(input.name)) {
      throw refuse(
        `graph input ${JSON.stringify(input.name)} is not one this service feeds (input_ids, attention_mask, position_ids): export the text-classification or token-classification task without past key values`,
      );
    }
    const type = input.isTensor ? input.type : undefined;
    if (type !== 'int64' && type !== 'int32') throw refuse(`graph input ${input.name} is ${String(type)}, expected int64 or int32`);
    inputs.push({ name: input.name as GraphInput['name'], type });
  }
  if (!inputs.some((i) => i.name === 'input_ids')) throw refuse('the graph has no input_ids input');

  const outputs = meta.outputMetadata;
  const chosen = outputs.find((o) => o.name === 'logits') ?? (outputs.length === 1 ? outputs[0] : undefined);
  if (chosen === undefined) throw refuse(`no logits output among [${outputs.map((o) => o.name).join(', ')}]`);
  if (!chosen.isTensor || chosen.type !== 'float32') throw refuse(`output ${chosen.name} is not a float32 tensor`);
  const { shape } = chosen;
  const labels = shape.at(-1);
  if (typeof labels === 'number' && labels !== 1) throw refuse(`output ${chosen.name} has ${labels} labels; a reward model has one`);
  if (shape.length === 3) return { inputs, output: chosen.name, kind: 'tokens' };
  if (shape.length === 2) {
    if (readAt === 'last_token') {
      throw refuse(`output ${chosen.name} is [batch, labels]: a ...ForTokenClassification reward model is read per token ([batch, sequence, 1])`);
    }
    return { inputs, output: chosen.name, kind: 'pooled' };
  }
  throw refuse(`output ${chosen.name} has rank ${shape.length}; expected [batch, sequence, 1] or [batch, 1]`);
}
