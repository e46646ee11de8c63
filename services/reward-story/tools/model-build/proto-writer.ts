/**
 * A minimal protobuf encoder: just the wire types ONNX files use (varint,
 * 32-bit float, length-delimited). Fields are written in call order, so the
 * same calls always give the same bytes, which the committed default model
 * relies on.
 */

const WireType = { Varint: 0, Fixed32: 5, LengthDelimited: 2 } as const;

const textEncoder = new TextEncoder();

/** Appends fields of one message; `finish()` returns its bytes. */
export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  /** An int32/int64/enum/bool field (negative numbers take ten bytes, as protobuf requires). */
  varint(field: number, value: number | bigint): this {
    this.tag(field, WireType.Varint);
    this.rawVarint(BigInt.asUintN(64, BigInt(value)));
    return this;
  }

  /** A `float` field. */
  float(field: number, value: number): this {
    this.tag(field, WireType.Fixed32);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.push(bytes);
    return this;
  }

  /** A `string` field (UTF-8). */
  string(field: number, value: string): this {
    return this.bytes(field, textEncoder.encode(value));
  }

  /** A `bytes` field, or an already encoded sub-message. */
  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WireType.LengthDelimited);
    this.rawVarint(BigInt(value.length));
    this.push(value);
    return this;
  }

  /** A sub-message field. */
  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }

  /** A packed `repeated int64` field. */
  packedVarints(field: number, values: ReadonlyArray<number | bigint>): this {
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(BigInt.asUintN(64, BigInt(v)));
    return this.bytes(field, inner.finish());
  }

  /** A packed `repeated float` field. */
  packedFloats(field: number, values: ReadonlyArray<number>): this {
    const bytes = new Uint8Array(values.length * 4);
    const view = new DataView(bytes.buffer);
    values.forEach((v, i) => view.setFloat32(i * 4, v, true));
    return this.bytes(field, bytes);
  }

  /** The encoded message. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  private tag(field: number, wireType: number): void {
    this.rawVarint(BigInt((field << 3) | wireType));
  }

  private rawVarint(value: bigint): void {
    const bytes: number[] = [];
    let v = value;
    while (v >= 0x80n) {
      bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    bytes.push(Number(v));
    this.push(Uint8Array.from(bytes));
  }

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }
}
