import type { InferenceSession } from 'onnxruntime-node';
import { AppError, ErrorCode } from '@rl/service-kit';

/**
 * Which inputs a sentence-transformers style ONNX graph takes and which output
 * carries the embedding, read from the session's metadata.
 */

/** Integer element types accepted for the token inputs. */
export type IdType = 'int64' | 'int32';

/** A token input the graph declares. */
export interface TokenInput {
  name: 'input_ids' | 'attention_mask' | 'token_type_ids';
  type: IdType;
}

/** The output we read: per-token states to pool, or an already pooled vector. */
export interface EmbeddingOutput {
  name: string;
  kind: 'tokens' | 'pooled';
}

/** Inputs to feed and the output to fetch. */
export interface ModelIo {
  inputs: TokenInput[];
  output: EmbeddingOutput;
}

const KNOWN_INPUTS = new Set<string>(['input_ids', 'attention_mask', 'token_type_ids']);
// A sentence-transformers export with both prefers the pooled one: it already
// applies the model's own pooling (which may not be mean pooling).
const OUTPUT_PREFERENCE: readonly EmbeddingOutput[] = [
  { name: 'sentence_embedding', kind: 'pooled' },
  { name: 'last_hidden_state', kind: 'tokens' },
  { name: 'token_embeddings', kind: 'tokens' },
];

function unusable(message: string, details: Record<string, unknown>): AppError {
  return new AppError(ErrorCode.Unavailable, `embedding model: ${message}`, { details });
}

/** Reads the session's declared inputs and outputs; throws `unavailable` on a graph we cannot feed. */
export function describeModelIo(session: Pick<InferenceSession, 'inputMetadata' | 'outputMetadata'>): ModelIo {
  const inputs: TokenInput[] = [];
  for (const meta of session.inputMetadata) {
    if (!KNOWN_INPUTS.has(meta.name)) {
      throw unusable(`unsupported graph input ${meta.name} (expected input_ids, attention_mask, token_type_ids)`, { input: meta.name });
    }
    const type = meta.isTensor ? meta.type : undefined;
    if (type !== 'int64' && type !== 'int32') {
      throw unusable(`graph input ${meta.name} must be int64 or int32, is ${String(type)}`, { input: meta.name });
    }
    inputs.push({ name: meta.name as TokenInput['name'], type });
  }
  if (!inputs.some((i) => i.name === 'input_ids')) throw unusable('graph has no input_ids input', {});

  const outputs = session.outputMetadata;
  const names = outputs.map((o) => o.name);
  let output = OUTPUT_PREFERENCE.find((o) => names.includes(o.name));
  const only = outputs[0];
  if (output === undefined && outputs.length === 1 && only?.isTensor) {
    // An unnamed single output: rank 3 is per-token, rank 2 pooled.
    if (only.shape.length === 3) output = { name: only.name, kind: 'tokens' };
    if (only.shape.length === 2) output = { name: only.name, kind: 'pooled' };
  }
  if (output === undefined) {
    throw unusable(`no embedding output among [${names.join(', ')}] (expected last_hidden_state, token_embeddings or sentence_embedding)`, {
      outputs: names,
    });
  }
  return { inputs, output };
}
