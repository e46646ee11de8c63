// A small reader and writer of the safetensors format (F32 only):
// 8-byte little-endian header length, a JSON header mapping each tensor name to
// {dtype, shape, data_offsets} (offsets relative to the data section) plus an
// optional `__metadata__` of string values, then the raw little-endian data.
import { z } from 'zod';
import { AppError, ErrorCode, setOwn } from '@rl/service-kit/core';
import type { HostTensor } from '../model/params.ts';

/** Largest header accepted (the reference implementation's limit). */
export const MAX_HEADER_BYTES = 100_000_000;

const Entry = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().min(0)),
  data_offsets: z.tuple([z.number().int().min(0), z.number().int().min(0)]),
});
const Metadata = z.record(z.string(), z.string());

/** Tensors by name and the string metadata of a safetensors file. */
export interface Safetensors {
  tensors: Record<string, HostTensor>;
  metadata: Record<string, string>;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function fail(message: string): AppError {
  return new AppError(ErrorCode.ValidationFailed, `safetensors: ${message}`);
}

/** Serialises tensors (sorted by name, so equal input gives equal bytes) and metadata. */
export function encodeSafetensors(tensors: Readonly<Record<string, HostTensor>>, metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  const names = Object.keys(tensors).sort();
  const header: Record<string, unknown> = { __metadata__: { ...metadata } };
  let offset = 0;
  for (const name of names) {
    const t = tensors[name] as HostTensor;
    const size = t.shape.reduce((a, b) => a * b, 1);
    if (size !== t.data.length) throw fail(`tensor ${name}: shape [${t.shape}] does not match ${t.data.length} values`);
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + size * 4] };
    offset += size * 4;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8; // keeps the data section 8-byte aligned
  if (padded > json.length) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(padded - json.length));
  const out = new Uint8Array(8 + json.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  const dataStart = 8 + json.length;
  for (const name of names) {
    const t = tensors[name] as HostTensor;
    const [begin] = (header[name] as { data_offsets: [number, number] }).data_offsets;
    if (LITTLE_ENDIAN) out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), dataStart + begin);
    else t.data.forEach((v, i) => view.setFloat32(dataStart + begin + i * 4, v, true));
  }
  return out;
}

/** Parses a safetensors buffer; anything malformed is a 400 `validation_failed` naming the problem. */
export function decodeSafetensors(bytes: Uint8Array): Safetensors {
  if (bytes.length < 8) throw fail(`file is ${bytes.length} bytes, shorter than the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = view.getBigUint64(0, true);
  if (headerLen > BigInt(Math.min(MAX_HEADER_BYTES, bytes.length - 8)))
    throw fail(`header length ${headerLen} exceeds the file or the ${MAX_HEADER_BYTES}-byte limit`);
  const dataStart = 8 + Number(headerLen);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, dataStart)));
  } catch (err) {
    throw fail(`header is not valid UTF-8 JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw fail('header is not a JSON object');
  const { __metadata__: rawMeta, ...entries } = header as Record<string, unknown>;
  const meta = Metadata.safeParse(rawMeta ?? {});
  if (!meta.success) throw fail('__metadata__ must map strings to strings');
  const dataLen = bytes.length - dataStart;
  const spans: Array<[number, number, string]> = [];
  const tensors: Record<string, HostTensor> = {};
  for (const [name, raw] of Object.entries(entries)) {
    const e = Entry.safeParse(raw);
    if (!e.success) throw fail(`tensor ${name}: entry needs dtype, shape and data_offsets`);
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = e.data;
    if (dtype !== 'F32') throw fail(`tensor ${name}: dtype ${dtype} is not supported (only F32)`);
    const size = shape.reduce((a, b) => a * b, 1);
    if (end < begin || end > dataLen) throw fail(`tensor ${name}: data_offsets [${begin}, ${end}] fall outside the ${dataLen}-byte data section`);
    if (end - begin !== size * 4) throw fail(`tensor ${name}: ${end - begin} bytes do not hold shape [${shape}] of F32`);
    spans.push([begin, end, name]);
    const data = new Float32Array(size);
    if (LITTLE_ENDIAN) new Uint8Array(data.buffer).set(bytes.subarray(dataStart + begin, dataStart + end));
    else for (let i = 0; i < size; i++) data[i] = view.getFloat32(dataStart + begin + i * 4, true);
    setOwn(tensors, name, { shape, data });
  }
  // The format requires the tensors to tile the data section exactly: no holes, no overlaps.
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let covered = 0;
  for (const [begin, end, name] of spans) {
    if (begin !== covered) throw fail(`tensor ${name}: data starts at ${begin}, expected ${covered} (holes or overlaps in the data section)`);
    covered = end;
  }
  if (covered !== dataLen) throw fail(`data section has ${dataLen - covered} bytes no tensor uses`);
  return { tensors, metadata: meta.data };
}
