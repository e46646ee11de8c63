import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppError } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { decodeSafetensors, encodeSafetensors, readSafetensors, writeSafetensors } from './safetensors.ts';

const tensors = {
  'b.weight': { shape: [2, 3], data: Float32Array.from([1, -2, 3.5, 0, 1e-20, -0]) },
  a: { shape: [1], data: Float32Array.from([Math.PI]) },
  'empty.é': { shape: [0, 4], data: new Float32Array(0) },
};

function header(bytes: Uint8Array): { len: number; json: Record<string, unknown> } {
  const len = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { len, json: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len))) as Record<string, unknown> };
}

function withHeader(json: unknown, data: Uint8Array): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(json));
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as AppError).code}: ${(e as Error).message}`;
  }
  return 'no error';
}

describe('safetensors', () => {
  it('writes the documented layout: u64 LE header length, JSON header, 8-byte aligned data in name order', () => {
    const bytes = encodeSafetensors(tensors, { version: 'v1' });
    const { len, json } = header(bytes);
    expect(len % 8).toBe(0);
    expect(json.__metadata__).toEqual({ version: 'v1' });
    expect(json.a).toEqual({ dtype: 'F32', shape: [1], data_offsets: [0, 4] });
    expect(json['b.weight']).toEqual({ dtype: 'F32', shape: [2, 3], data_offsets: [4, 28] });
    expect(json['empty.é']).toEqual({ dtype: 'F32', shape: [0, 4], data_offsets: [28, 28] });
    expect(bytes.length).toBe(8 + len + 28);
    const first = new DataView(bytes.buffer).getFloat32(8 + len, true);
    expect(first).toBe(Math.fround(Math.PI));
  });

  it('round-trips values bit for bit, metadata included, and encodes deterministically', () => {
    const bytes = encodeSafetensors(tensors, { a: 'x', json: '{"k":[1]}' });
    const back = decodeSafetensors(bytes);
    expect(back.metadata).toEqual({ a: 'x', json: '{"k":[1]}' });
    for (const [name, t] of Object.entries(tensors)) {
      expect(back.tensors[name]!.shape).toEqual(t.shape);
      expect(Array.from(new Uint32Array(back.tensors[name]!.data.buffer))).toEqual(
        Array.from(new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length)),
      );
    }
    expect(encodeSafetensors(back.tensors, back.metadata)).toEqual(bytes);
  });

  it('reads files written by other writers (no metadata, unpadded header)', () => {
    const data = new Uint8Array(Float32Array.from([1, 2]).buffer);
    const back = decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, data));
    expect(Array.from(back.tensors.w!.data)).toEqual([1, 2]);
    expect(back.metadata).toEqual({});
  });

  it('reads a tensor named __proto__ as a tensor, leaving the map’s prototype alone', () => {
    const data = new Uint8Array(Float32Array.from([1, 2]).buffer);
    const back = decodeSafetensors(withHeader(JSON.parse('{"__proto__": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'), data));
    expect(Object.getPrototypeOf(back.tensors)).toBe(Object.prototype);
    expect(Object.keys(back.tensors)).toEqual(['__proto__']);
    expect(Array.from(Object.getOwnPropertyDescriptor(back.tensors, '__proto__')?.value.data as Float32Array)).toEqual([1, 2]);
  });

  it('rejects malformed files with validation_failed naming the problem', () => {
    const f32 = (n: number) => new Uint8Array(n * 4);
    expect(codeOf(() => decodeSafetensors(new Uint8Array(4)))).toMatch(/^validation_failed: .*shorter/);
    expect(codeOf(() => decodeSafetensors(encodeSafetensors(tensors).subarray(0, 40)))).toMatch(/^validation_failed/);
    expect(codeOf(() => decodeSafetensors(withHeader({ w: { dtype: 'I32', shape: [1], data_offsets: [0, 4] } }, f32(1)), 'shard-2.safetensors'))).toBe(
      'validation_failed: shard-2.safetensors: tensor w: dtype I32 is not supported (F32, BF16, F16)',
    );
    expect(codeOf(() => decodeSafetensors(withHeader({ w: { dtype: 'F64', shape: [1], data_offsets: [0, 8] } }, f32(2))))).toMatch(
      /tensor w: dtype F64 is not supported/,
    );
    expect(codeOf(() => decodeSafetensors(withHeader({ w: { dtype: 'BF16', shape: [3], data_offsets: [0, 4] } }, f32(1))))).toMatch(
      /tensor w: 4 bytes do not hold shape \[3\] of BF16/,
    );
    expect(codeOf(() => decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, f32(2))))).toMatch(/tensor w: 8 bytes/);
    expect(codeOf(() => decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, f32(2))))).toMatch(/holes or overlaps/);
    expect(
      codeOf(() =>
        decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, v: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, f32(2))),
      ),
    ).toMatch(/holes or overlaps/);
    expect(codeOf(() => decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, f32(2))))).toMatch(/no tensor uses/);
    expect(codeOf(() => decodeSafetensors(withHeader({ __metadata__: { n: 1 } }, f32(0))))).toMatch(/__metadata__/);
    expect(codeOf(() => decodeSafetensors(withHeader([1, 2], f32(0))))).toMatch(/not a JSON object/);
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 1n << 40n, true);
    expect(codeOf(() => decodeSafetensors(huge))).toMatch(/header length/);
  });
});

describe('safetensors files', () => {
  const tmp = tempDir('rl-safetensors-');
  afterAll(() => tmp.cleanup());

  it('writeSafetensors writes the bytes encodeSafetensors gives, readSafetensors reads them back, per dtype', async () => {
    for (const dtype of ['F32', 'BF16', 'F16'] as const) {
      const path = join(tmp.dir, `t-${dtype}.safetensors`);
      await writeSafetensors(path, tensors, { format: 'pt' }, { dtype });
      const bytes = new Uint8Array(readFileSync(path));
      expect(bytes).toEqual(encodeSafetensors(tensors, { format: 'pt' }, { dtype }));
      expect(await readSafetensors(path)).toEqual(decodeSafetensors(bytes));
    }
  });

  it('readSafetensors checks the header before reading data and names the file', async () => {
    const path = join(tmp.dir, 'truncated.safetensors');
    const good = encodeSafetensors(tensors);
    writeFileSync(path, good.subarray(0, good.length - 4));
    await expect(readSafetensors(path)).rejects.toThrow(
      new RegExp(`^${path}: tensor b\\.weight: data_offsets \\[4, 28\\] fall outside the 24-byte data section$`),
    );
    writeFileSync(path, new Uint8Array(3));
    await expect(readSafetensors(path)).rejects.toThrow(`${path}: file is 3 bytes, shorter than the 8-byte header length`);
  });
});
