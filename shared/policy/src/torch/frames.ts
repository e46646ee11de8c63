// The frames exchanged with the PyTorch engine's child process
// (shared/python/rl_torch_engine/protocol.py): a 4-byte little-endian header
// length, a UTF-8 JSON header, then `payload_bytes` bytes: the header's
// `tensors` ([{name, dtype, shape}], F32, I32 or U8: opaque bytes such as a
// safetensors file) end to end, raw little-endian. Tensors never travel as JSON
// numbers.
import { endianness } from 'node:os';
import { AppError, ErrorCode } from '@rl/service-kit/core';

/** A tensor on the wire. */
export type WireData = Float32Array | Int32Array | Uint8Array;

const DTYPES = { F32: Float32Array, I32: Int32Array, U8: Uint8Array } as const;
type WireDtype = keyof typeof DTYPES;
const dtypeOf = (d: WireData): WireDtype => (d instanceof Float32Array ? 'F32' : d instanceof Int32Array ? 'I32' : 'U8');

/** A decoded frame: its JSON header and its tensors by name. */
export interface Frame {
  header: Record<string, unknown>;
  tensors: Map<string, WireData>;
  /** Its size on the wire. */
  bytes: number;
}

const MAX_HEADER_BYTES = 1 << 20;

if (endianness() !== 'LE') throw new Error('the torch engine frames carry little-endian tensors as they lie in memory');

/** One frame: `header` plus the tensors laid out in order. */
export function encodeFrame(header: Record<string, unknown>, tensors: Record<string, WireData> = {}): Buffer {
  const specs = Object.entries(tensors).map(([name, data]) => ({ name, dtype: dtypeOf(data), shape: [data.length] }));
  const payload = Object.values(tensors).map((d) => Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  const bytes = payload.reduce((n, b) => n + b.length, 0);
  const head = Buffer.from(JSON.stringify({ ...header, ...(specs.length > 0 && { tensors: specs }), payload_bytes: bytes }));
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(head.length);
  return Buffer.concat([prefix, head, ...payload]);
}

const engineError = (message: string) => new AppError(ErrorCode.Internal, `torch engine: ${message}`);

function decodeTensors(header: Record<string, unknown>, payload: Buffer): Map<string, WireData> {
  const out = new Map<string, WireData>();
  const specs = header.tensors ?? [];
  if (!Array.isArray(specs)) throw engineError('frame header: tensors is not a list');
  let offset = 0;
  for (const spec of specs as Array<{ name?: unknown; dtype?: unknown; shape?: unknown }>) {
    if (typeof spec.dtype !== 'string' || !Object.hasOwn(DTYPES, spec.dtype)) {
      throw engineError(`frame tensor ${String(spec.name)}: dtype ${String(spec.dtype)} (F32, I32, U8)`);
    }
    const Type = DTYPES[spec.dtype as WireDtype];
    const shape = Array.isArray(spec.shape) ? (spec.shape as unknown[]) : [];
    const count = shape.reduce((n: number, s) => n * Number(s), 1);
    const bytes = Type.BYTES_PER_ELEMENT * count;
    if (!Number.isInteger(count) || count < 0 || offset + bytes > payload.length) throw engineError(`frame tensor ${String(spec.name)}: runs past the payload`);
    // Copied into its own buffer: the payload's offset need not be 4-byte aligned.
    const own = new Uint8Array(payload.subarray(offset, offset + bytes)).buffer;
    out.set(String(spec.name), new Type(own));
    offset += bytes;
  }
  if (offset !== payload.length) throw engineError(`frame payload has ${payload.length - offset} bytes no tensor describes`);
  return out;
}

/** Splits a byte stream into frames as its chunks arrive. */
export class FrameReader {
  /** Chunks not yet parsed, joined only once the frame they hold is complete (a large payload arrives in many chunks). */
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes the next step of parsing needs (the length prefix, the header, then the whole frame). */
  private need = 4;

  /** The frames completed by `chunk` (a malformed frame throws: the stream is then out of step). */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const frames: Frame[] = [];
    while (this.size >= this.need) {
      const buffered = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
      this.chunks = [buffered];
      const headLength = buffered.readUInt32LE(0);
      if (headLength > MAX_HEADER_BYTES) throw engineError(`frame header of ${headLength} bytes (at most ${MAX_HEADER_BYTES})`);
      if (buffered.length < 4 + headLength) {
        this.need = 4 + headLength;
        break;
      }
      let header: Record<string, unknown>;
      try {
        header = JSON.parse(buffered.subarray(4, 4 + headLength).toString('utf8')) as Record<string, unknown>;
      } catch (err) {
        throw engineError(`frame header is not JSON: ${(err as Error).message}`);
      }
      const payloadBytes = header.payload_bytes ?? 0;
      if (typeof payloadBytes !== 'number' || !Number.isInteger(payloadBytes) || payloadBytes < 0) throw engineError('frame header: bad payload_bytes');
      const end = 4 + headLength + payloadBytes;
      if (buffered.length < end) {
        this.need = end;
        break;
      }
      frames.push({ header, tensors: decodeTensors(header, buffered.subarray(4 + headLength, end)), bytes: end });
      const rest = buffered.subarray(end);
      this.chunks = rest.length === 0 ? [] : [rest];
      this.size = rest.length;
      this.need = 4;
    }
    return frames;
  }
}
