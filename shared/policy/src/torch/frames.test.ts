// The torch engine's frames: tensors as raw little-endian bytes behind a JSON
// header, read back whole however the stream splits them.
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader } from './frames.ts';

describe('torch engine frames', () => {
  const logprobs = Float32Array.from([-0.5, -1.25, Math.fround(-3.3)]);
  const ids = Int32Array.from([7, 0, 2_000_000_000, -1]);
  const frame = encodeFrame({ op: 'score', n: 2 }, { logprobs, ids });

  it('lays out a length-prefixed JSON header, then the tensors raw, in order', () => {
    const headLength = frame.readUInt32LE(0);
    expect(JSON.parse(frame.subarray(4, 4 + headLength).toString())).toEqual({
      op: 'score',
      n: 2,
      tensors: [
        { name: 'logprobs', dtype: 'F32', shape: [3] },
        { name: 'ids', dtype: 'I32', shape: [4] },
      ],
      payload_bytes: 28,
    });
    expect(frame.length).toBe(4 + headLength + 28);
    expect(frame.readFloatLE(4 + headLength + 4)).toBe(-1.25);
    expect(frame.readInt32LE(4 + headLength + 12 + 8)).toBe(2_000_000_000);
  });

  it('reads frames split at every byte and frames that share a chunk', () => {
    const reader = new FrameReader();
    const got = [];
    for (let i = 0; i < frame.length; i++) got.push(...reader.push(frame.subarray(i, i + 1)));
    got.push(...reader.push(Buffer.concat([encodeFrame({ ok: true }), frame])));
    expect(got.map((f) => f.header.op ?? f.header.ok)).toEqual(['score', true, 'score']);
    for (const f of [got[0]!, got[2]!]) {
      expect(f.tensors.get('logprobs')).toEqual(logprobs);
      expect(f.tensors.get('ids')).toEqual(ids);
    }
    expect(got[1]!.tensors.size).toBe(0);
  });

  it('refuses a header that is not JSON and a payload no tensor describes', () => {
    const bad = Buffer.concat([Buffer.from([3, 0, 0, 0]), Buffer.from('{x}')]);
    expect(() => new FrameReader().push(bad)).toThrow(/^torch engine: frame header is not JSON/);
    const head = Buffer.from(JSON.stringify({ payload_bytes: 4 }));
    const extra = Buffer.concat([Buffer.from([head.length, 0, 0, 0]), head, Buffer.alloc(4)]);
    expect(() => new FrameReader().push(extra)).toThrow('torch engine: frame payload has 4 bytes no tensor describes');
  });
});
