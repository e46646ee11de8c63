import { ProtoWriter } from './proto-writer.ts';

/**
 * Encodes an ONNX `ModelProto` from a plain description. Field numbers follow
 * onnx/onnx.proto (IR version 8); only what our generated graphs need is
 * covered: nodes with int/float/ints/string attributes, initializers as
 * little-endian `raw_data`, tensor inputs and outputs with symbolic dims.
 */

/** ONNX `TensorProto.DataType` values we write. */
export const OnnxDataType = { Float: 1, Int8: 3, Int16: 5, Int32: 6, Int64: 7 } as const;
/** One of {@link OnnxDataType}. */
export type OnnxDataType = (typeof OnnxDataType)[keyof typeof OnnxDataType];

/** An initializer (a constant tensor stored in the file). */
export type OnnxTensor =
  | { name: string; dims: readonly number[]; type: typeof OnnxDataType.Float; data: Float32Array }
  | { name: string; dims: readonly number[]; type: typeof OnnxDataType.Int8; data: Int8Array }
  | { name: string; dims: readonly number[]; type: typeof OnnxDataType.Int16; data: Int16Array }
  | { name: string; dims: readonly number[]; type: typeof OnnxDataType.Int32; data: Int32Array }
  | { name: string; dims: readonly number[]; type: typeof OnnxDataType.Int64; data: BigInt64Array };

/** A node attribute. */
export type OnnxAttribute =
  | { name: string; int: number }
  | { name: string; float: number }
  | { name: string; ints: readonly number[] }
  | { name: string; string: string };

/** A graph node. */
export interface OnnxNode {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes?: readonly OnnxAttribute[];
}

/** A graph input or output: element type and shape (numbers fixed, strings symbolic). */
export interface OnnxValueInfo {
  name: string;
  type: OnnxDataType;
  shape: ReadonlyArray<number | string>;
}

/** Everything {@link encodeOnnxModel} writes. */
export interface OnnxModelSpec {
  graphName: string;
  producerName: string;
  docString: string;
  /** Default-domain opset version. @default 17 */
  opsetVersion?: number;
  /** @default 8 */
  irVersion?: number;
  nodes: readonly OnnxNode[];
  initializers: readonly OnnxTensor[];
  inputs: readonly OnnxValueInfo[];
  outputs: readonly OnnxValueInfo[];
  /** Written as `metadata_props`, in the given order. */
  metadata?: ReadonlyArray<readonly [string, string]>;
}

// AttributeProto.AttributeType
const AttrType = { Float: 1, Int: 2, String: 3, Ints: 7 } as const;

function encodeTensor(t: OnnxTensor): ProtoWriter {
  const raw = new Uint8Array(t.data.length * t.data.BYTES_PER_ELEMENT);
  const view = new DataView(raw.buffer);
  // Written element by element so the bytes are little-endian on any host.
  for (let i = 0; i < t.data.length; i++) {
    if (t.type === OnnxDataType.Float) view.setFloat32(i * 4, t.data[i]!, true);
    else if (t.type === OnnxDataType.Int8) view.setInt8(i, t.data[i]!);
    else if (t.type === OnnxDataType.Int16) view.setInt16(i * 2, t.data[i]!, true);
    else if (t.type === OnnxDataType.Int32) view.setInt32(i * 4, t.data[i]!, true);
    else view.setBigInt64(i * 8, t.data[i]!, true);
  }
  return new ProtoWriter().packedVarints(1, t.dims).varint(2, t.type).string(8, t.name).bytes(9, raw);
}

function encodeAttribute(a: OnnxAttribute): ProtoWriter {
  const w = new ProtoWriter().string(1, a.name);
  if ('int' in a) return w.varint(20, AttrType.Int).varint(3, a.int);
  if ('float' in a) return w.varint(20, AttrType.Float).float(2, a.float);
  if ('ints' in a) return w.varint(20, AttrType.Ints).packedVarints(8, a.ints);
  return w.varint(20, AttrType.String).string(4, a.string);
}

function encodeNode(n: OnnxNode, index: number): ProtoWriter {
  const w = new ProtoWriter();
  for (const input of n.inputs) w.string(1, input);
  for (const output of n.outputs) w.string(2, output);
  w.string(3, `${n.opType}_${index}`).string(4, n.opType);
  for (const a of n.attributes ?? []) w.message(5, encodeAttribute(a));
  return w;
}

function encodeValueInfo(v: OnnxValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = typeof d === 'number' ? new ProtoWriter().varint(1, d) : new ProtoWriter().string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().varint(1, v.type).message(2, shape);
  return new ProtoWriter().string(1, v.name).message(2, new ProtoWriter().message(1, tensorType));
}

/** Serialises a model to the bytes of a `.onnx` file. */
export function encodeOnnxModel(spec: OnnxModelSpec): Uint8Array {
  const graph = new ProtoWriter();
  spec.nodes.forEach((n, i) => graph.message(1, encodeNode(n, i)));
  graph.string(2, spec.graphName);
  for (const t of spec.initializers) graph.message(5, encodeTensor(t));
  for (const v of spec.inputs) graph.message(11, encodeValueInfo(v));
  for (const v of spec.outputs) graph.message(12, encodeValueInfo(v));

  const model = new ProtoWriter()
    .varint(1, spec.irVersion ?? 8)
    .string(2, spec.producerName)
    .string(6, spec.docString)
    .message(7, graph)
    .message(8, new ProtoWriter().string(1, '').varint(2, spec.opsetVersion ?? 17));
  for (const [key, value] of spec.metadata ?? []) {
    model.message(14, new ProtoWriter().string(1, key).string(2, value));
  }
  return model.finish();
}
