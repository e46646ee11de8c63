// A reader and writer of the safetensors format: 8-byte little-endian header
// length, a JSON header mapping each tensor name to {dtype, shape,
// data_offsets} (offsets relative to the data section) plus an optional
// `__metadata__` of string values, then the raw little-endian data. Tensors are
// F32, BF16 or F16 on disk and always Float32 in memory.
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { AppError, ErrorCode, setOwn } from '@rl/service-kit/core';
import type { HostTensor } from '../model/params.ts';
import { decodeTensorBytes, encodeTensorBytes, type StoredDtype } from './dtypes.ts';

export type { StoredDtype } from './dtypes.ts';

/** Largest header accepted (the reference implementation's limit). */
export const MAX_HEADER_BYTES = 100_000_000;

const BYTES_PER_VALUE: Readonly<Record<StoredDtype, number>> = { F32: 4, BF16: 2, F16: 2 };
const READ_DTYPES = Object.keys(BYTES_PER_VALUE) as StoredDtype[];

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

/** Options of the writers. */
export interface EncodeOptions {
  /** Stored precision; BF16 and F16 round to nearest even. @default 'F32' */
  dtype?: StoredDtype;
}

/** One tensor of a parsed header: where its bytes lie in the data section. */
interface Span {
  name: string;
  dtype: StoredDtype;
  shape: number[];
  begin: number;
  end: number;
}

/** A parsed, fully validated header. */
interface Header {
  spans: Span[];
  metadata: Record<string, string>;
}

function failIn(where: string) {
  return (message: string) => new AppError(ErrorCode.ValidationFailed, `${where}: ${message}`);
}

function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * Parses the JSON header and checks every entry against a data section of
 * `dataLen` bytes, so no tensor data is read before the whole file is known to
 * be well formed.
 */
function parseHeader(headerBytes: Uint8Array, dataLen: number, where: string): Header {
  const fail = failIn(where);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (err) {
    throw fail(`header is not valid UTF-8 JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw fail('header is not a JSON object');
  const { __metadata__: rawMeta, ...entries } = header as Record<string, unknown>;
  const meta = Metadata.safeParse(rawMeta ?? {});
  if (!meta.success) throw fail('__metadata__ must map strings to strings');
  const spans: Span[] = [];
  for (const [name, raw] of Object.entries(entries)) {
    const e = Entry.safeParse(raw);
    if (!e.success) throw fail(`tensor ${name}: entry needs dtype, shape and data_offsets`);
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = e.data;
    if (!(READ_DTYPES as string[]).includes(dtype)) throw fail(`tensor ${name}: dtype ${dtype} is not supported (${READ_DTYPES.join(', ')})`);
    const stored = dtype as StoredDtype;
    if (end < begin || end > dataLen) throw fail(`tensor ${name}: data_offsets [${begin}, ${end}] fall outside the ${dataLen}-byte data section`);
    if (end - begin !== numel(shape) * BYTES_PER_VALUE[stored]) throw fail(`tensor ${name}: ${end - begin} bytes do not hold shape [${shape}] of ${dtype}`);
    spans.push({ name, dtype: stored, shape, begin, end });
  }
  // The format requires the tensors to tile the data section exactly: no holes, no overlaps.
  const sorted = [...spans].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let covered = 0;
  for (const { begin, end, name } of sorted) {
    if (begin !== covered) throw fail(`tensor ${name}: data starts at ${begin}, expected ${covered} (holes or overlaps in the data section)`);
    covered = end;
  }
  if (covered !== dataLen) throw fail(`data section has ${dataLen - covered} bytes no tensor uses`);
  return { spans, metadata: meta.data };
}

/** The header length field, checked against the file size. */
function headerLength(first8: Uint8Array, fileLen: number, where: string): number {
  const fail = failIn(where);
  if (fileLen < 8) throw fail(`file is ${fileLen} bytes, shorter than the 8-byte header length`);
  const len = new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true);
  if (len > BigInt(Math.min(MAX_HEADER_BYTES, fileLen - 8))) throw fail(`header length ${len} exceeds the file or the ${MAX_HEADER_BYTES}-byte limit`);
  return Number(len);
}

/** Parses a safetensors buffer; anything malformed is a 400 `validation_failed` naming `file` (when given) and the problem. */
export function decodeSafetensors(bytes: Uint8Array, file?: string): Safetensors {
  const where = file ?? 'safetensors';
  const len = headerLength(bytes, bytes.length, where);
  const dataStart = 8 + len;
  const { spans, metadata } = parseHeader(bytes.subarray(8, dataStart), bytes.length - dataStart, where);
  const tensors: Record<string, HostTensor> = {};
  for (const s of spans) {
    const data = decodeTensorBytes(s.dtype, bytes.subarray(dataStart + s.begin, dataStart + s.end));
    setOwn(tensors, s.name, { shape: s.shape, data });
  }
  return { tensors, metadata };
}

/**
 * Reads a safetensors file tensor by tensor (no whole-file buffer, so files
 * past Node's 2 GiB readFile limit load too); the header is validated before
 * any tensor is read. Errors name the path.
 */
export async function readSafetensors(path: string): Promise<Safetensors> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const first8 = new Uint8Array(8);
    if (size >= 8) await readFully(fh, first8, 0);
    const len = headerLength(first8, size, path);
    const headerBytes = new Uint8Array(len);
    await readFully(fh, headerBytes, 8);
    const dataStart = 8 + len;
    const { spans, metadata } = parseHeader(headerBytes, size - dataStart, path);
    const tensors: Record<string, HostTensor> = {};
    for (const s of spans) {
      const raw = new Uint8Array(s.end - s.begin);
      await readFully(fh, raw, dataStart + s.begin);
      setOwn(tensors, s.name, { shape: s.shape, data: decodeTensorBytes(s.dtype, raw) });
    }
    return { tensors, metadata };
  } finally {
    await fh.close();
  }
}

async function readFully(fh: Awaited<ReturnType<typeof open>>, into: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await fh.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new AppError(ErrorCode.ValidationFailed, `safetensors: file ended ${into.length - done} bytes early (changed while read?)`);
    done += bytesRead;
  }
}

async function writeFully(fh: Awaited<ReturnType<typeof open>>, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length; ) done += (await fh.write(bytes, done, bytes.length - done)).bytesWritten;
}

/** The header bytes (padded so the data section is 8-byte aligned) and each tensor's place, names sorted. */
function layout(
  tensors: Readonly<Record<string, HostTensor>>,
  metadata: Readonly<Record<string, string>>,
  dtype: StoredDtype,
): { header: Uint8Array; names: string[]; dataLen: number } {
  const names = Object.keys(tensors).sort();
  const header: Record<string, unknown> = { __metadata__: { ...metadata } };
  let offset = 0;
  for (const name of names) {
    const t = tensors[name] as HostTensor;
    const size = numel(t.shape);
    if (size !== t.data.length) throw failIn('safetensors')(`tensor ${name}: shape [${t.shape}] does not match ${t.data.length} values`);
    const bytes = size * BYTES_PER_VALUE[dtype];
    setOwn(header, name, { dtype, shape: t.shape, data_offsets: [offset, offset + bytes] });
    offset += bytes;
  }
  const text = JSON.stringify(header);
  const raw = new TextEncoder().encode(text);
  const padded = Math.ceil(raw.length / 8) * 8; // keeps the data section 8-byte aligned
  return { header: padded === raw.length ? raw : new TextEncoder().encode(text + ' '.repeat(padded - raw.length)), names, dataLen: offset };
}

/** Serialises tensors (sorted by name, so equal input gives equal bytes) and metadata. */
export function encodeSafetensors(
  tensors: Readonly<Record<string, HostTensor>>,
  metadata: Readonly<Record<string, string>> = {},
  options: EncodeOptions = {},
): Uint8Array {
  const dtype = options.dtype ?? 'F32';
  const { header, names, dataLen } = layout(tensors, metadata, dtype);
  const out = new Uint8Array(8 + header.length + dataLen);
  new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
  out.set(header, 8);
  let at = 8 + header.length;
  for (const name of names) {
    const bytes = encodeTensorBytes(dtype, (tensors[name] as HostTensor).data);
    out.set(bytes, at);
    at += bytes.length;
  }
  return out;
}

/** Writes the same bytes as {@link encodeSafetensors} to `path`, tensor by tensor (no whole-file buffer). */
export async function writeSafetensors(
  path: string,
  tensors: Readonly<Record<string, HostTensor>>,
  metadata: Readonly<Record<string, string>> = {},
  options: EncodeOptions = {},
): Promise<void> {
  const dtype = options.dtype ?? 'F32';
  const { header, names } = layout(tensors, metadata, dtype);
  const fh = await open(path, 'w');
  try {
    const len = new Uint8Array(8);
    new DataView(len.buffer).setBigUint64(0, BigInt(header.length), true);
    await writeFully(fh, len);
    await writeFully(fh, header);
    for (const name of names) await writeFully(fh, encodeTensorBytes(dtype, (tensors[name] as HostTensor).data));
    await fh.sync();
  } finally {
    await fh.close();
  }
}
