import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { decodeTensorBytes, encodeTensorBytes, f32BitsToBf16, f32BitsToF16 } from './dtypes.ts';

/** Little-endian bytes of 16-bit words. */
function le16(words: number[]): Uint8Array {
  const out = new Uint8Array(words.length * 2);
  words.forEach((w, i) => {
    out[2 * i] = w & 0xff;
    out[2 * i + 1] = w >>> 8;
  });
  return out;
}

function f32OfBits(bits: number): number {
  return new Float32Array(new Uint32Array([bits]).buffer)[0] as number;
}

function bitsOf(values: Float32Array): number[] {
  return Array.from(new Uint32Array(values.buffer, values.byteOffset, values.length));
}

function words(bytes: Uint8Array): number[] {
  return Array.from({ length: bytes.length / 2 }, (_, i) => (bytes[2 * i] as number) | ((bytes[2 * i + 1] as number) << 8));
}

describe('BF16', () => {
  it('reads as the upper 16 bits of an f32 (normals, subnormals, ±0, ±inf, nan)', () => {
    const cases: Array<[number, number]> = [
      [0x3f80, 0x3f800000], // 1
      [0xc000, 0xc0000000], // -2
      [0x0001, 0x00010000], // smallest subnormal, 2^-133
      [0x8000, 0x80000000], // -0
      [0x7f80, 0x7f800000], // inf
      [0xff80, 0xff800000], // -inf
      [0x7fc0, 0x7fc00000], // nan
      [0x7f7f, 0x7f7f0000], // largest finite
    ];
    expect(bitsOf(decodeTensorBytes('BF16', le16(cases.map(([h]) => h))))).toEqual(cases.map(([, f]) => f));
  });

  it('writes with round-to-nearest-even, overflow to inf, nan kept quiet', () => {
    const cases: Array<[number, number]> = [
      [0x3f800000, 0x3f80], // exact
      [0x3f808000, 0x3f80], // tie, even stays
      [0x3f818000, 0x3f82], // tie, odd rounds up
      [0x3f808001, 0x3f81], // above half
      [0x3f807fff, 0x3f80], // below half
      [0xbf818000, 0xbf82], // sign kept
      [0x7f7fffff, 0x7f80], // largest f32 rounds to inf
      [0x7f800000, 0x7f80],
      [0x7f800001, 0x7fc0], // signalling nan with a low payload stays nan
      [0xffc00000, 0xffc0],
      [0x00008000, 0x0000], // tie at the smallest subnormal, even 0
      [0x00018000, 0x0002],
    ];
    for (const [f, h] of cases) expect(f32BitsToBf16(f)).toBe(h);
    const data = Float32Array.from(cases.map(([f]) => f32OfBits(f)));
    // NaN payloads go through Float32Array untouched only when copied, so compare the encoder on the bits' floats.
    expect(words(encodeTensorBytes('BF16', data)).slice(0, 8)).toEqual(cases.slice(0, 8).map(([, h]) => h));
  });

  it('narrows 200k random f32 values to the nearest bf16 by value (ties to even), as a distance check computes it', () => {
    const rng = createRng(7);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const floatOfBits = (bits: number) => {
      u32[0] = bits;
      return f32[0] as number;
    };
    for (let i = 0; i < 200_000; i++) {
      const exp = Math.floor(rng.next() * 255); // 0..254: subnormals to the largest finite binade
      let mant = Math.floor(rng.next() * 0x800000);
      if (i % 5 === 0) mant = (mant & ~0xffff) | 0x8000; // a tie
      const sign = rng.next() < 0.5 ? 0x80000000 : 0;
      const bits = (sign | (exp << 23) | mant) >>> 0;
      const x = floatOfBits(bits);
      const lo = (bits & 0xffff0000) >>> 0; // toward zero
      const hi = lo + 0x10000; // away from zero (2^128 past the largest finite: the inf pattern)
      const hiValue = (hi & 0x7fffffff) === 0x7f800000 ? Math.sign(x) * 2 ** 128 : floatOfBits(hi);
      const dLo = Math.abs(x - floatOfBits(lo));
      const dHi = Math.abs(hiValue - x);
      const want = dLo < dHi ? lo : dHi < dLo ? hi : ((lo >>> 16) & 1) === 0 ? lo : hi;
      if (f32BitsToBf16(bits) !== want >>> 16)
        expect([bits.toString(16), f32BitsToBf16(bits).toString(16)]).toEqual([bits.toString(16), (want >>> 16).toString(16)]);
    }
  });

  it('round-trips every bf16 value bit for bit', () => {
    const all = Array.from({ length: 65536 }, (_, i) => i).filter((h) => (h & 0x7fff) <= 0x7f80 || (h & 0x40) !== 0);
    const back = words(encodeTensorBytes('BF16', decodeTensorBytes('BF16', le16(all))));
    expect(back).toEqual(all);
  });
});

describe('F16', () => {
  it('reads IEEE binary16: normals, subnormals, ±0, ±inf, nan', () => {
    const got = decodeTensorBytes('F16', le16([0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x8001, 0x7c00, 0xfc00, 0x8000, 0x3555]));
    expect(Array.from(got)).toEqual([1, -2, 65504, 2 ** -24, 1023 * 2 ** -24, 2 ** -14, -(2 ** -24), Infinity, -Infinity, -0, 0.333251953125]);
    expect(Object.is(got[9], -0)).toBe(true);
    const nan = decodeTensorBytes('F16', le16([0x7e00, 0xfe01]));
    expect(bitsOf(nan)).toEqual([0x7fc00000, 0xffc02000]);
  });

  it('writes with round-to-nearest-even, into subnormals and up to inf', () => {
    const cases: Array<[number, number]> = [
      [1, 0x3c00],
      [1 + 2 ** -11, 0x3c00], // tie, even stays
      [1 + 3 * 2 ** -11, 0x3c02], // tie, odd rounds up
      [1 + 2 ** -11 + 2 ** -20, 0x3c01], // above half
      [65504, 0x7bff],
      [65519, 0x7bff], // below the tie
      [65520, 0x7c00], // tie with odd 0x7bff rounds to inf
      [1e6, 0x7c00],
      [2 ** -24, 0x0001],
      [2 ** -25, 0x0000], // tie, even 0
      [3 * 2 ** -26, 0x0001], // above half of the smallest subnormal
      [3 * 2 ** -25, 0x0002], // tie between 1 and 2 subnormal units, even 2
      [1023.5 * 2 ** -24, 0x0400], // tie at the top of the subnormals carries into the smallest normal
      [2 ** -30, 0x0000],
      [-(2 ** -24), 0x8001],
      [-0, 0x8000],
      [-Infinity, 0xfc00],
      [0.1, 0x2e66],
    ];
    for (const [v, h] of cases) expect([v, f32BitsToF16(bitsOf(Float32Array.of(v))[0] as number)]).toEqual([v, h]);
    expect(words(encodeTensorBytes('F16', Float32Array.from(cases.map(([v]) => v))))).toEqual(cases.map(([, h]) => h));
    expect(f32BitsToF16(0x7fc00000)).toBe(0x7e00);
    expect(f32BitsToF16(0xff800001) & 0x7c00).toBe(0x7c00);
    expect(f32BitsToF16(0xff800001) & 0x3ff).not.toBe(0);
  });

  it('round-trips every f16 value bit for bit (nan payloads kept in their top bits)', () => {
    const all = Array.from({ length: 65536 }, (_, i) => i).filter((h) => (h & 0x7fff) <= 0x7c00 || (h & 0x200) !== 0);
    expect(words(encodeTensorBytes('F16', decodeTensorBytes('F16', le16(all))))).toEqual(all);
  });

  it('reads from an odd byte offset (other writers do not align the data section)', () => {
    const bytes = new Uint8Array(5);
    bytes.set(le16([0x3c00, 0xc000]), 1);
    expect(Array.from(decodeTensorBytes('F16', bytes.subarray(1)))).toEqual([1, -2]);
    expect(Array.from(decodeTensorBytes('BF16', bytes.subarray(1)))).toEqual([f32OfBits(0x3c000000), f32OfBits(0xc0000000)]);
  });
});

describe('F16 against numpy (an independent IEEE implementation)', () => {
  it('narrows 200k f32 values of every magnitude exactly as numpy astype(float16), and widens them back identically', () => {
    const rng = createRng(2026);
    const n = 200_000;
    const bitsIn = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      // Random sign, an exponent around binary16's range (subnormals, overflow), random mantissa; every 7th value a tie.
      const exp = 90 + Math.floor(rng.next() * 60);
      let mant = Math.floor(rng.next() * 0x800000);
      if (i % 7 === 0) mant = (mant & ~0x1fff) | 0x1000;
      bitsIn[i] = ((rng.next() < 0.5 ? 0x80000000 : 0) | (exp << 23) | mant) >>> 0;
    }
    const values = new Float32Array(bitsIn.buffer);
    const dir = mkdtempSync(join(tmpdir(), 'f16-numpy-'));
    try {
      const f32Path = join(dir, 'in.f32');
      const f16Path = join(dir, 'ours.f16');
      writeFileSync(f32Path, new Uint8Array(bitsIn.buffer));
      const ours = encodeTensorBytes('F16', values);
      writeFileSync(f16Path, ours);
      const script = [
        'import sys, numpy as np',
        'x = np.fromfile(sys.argv[1], dtype="<f4")',
        'ours = np.fromfile(sys.argv[2], dtype="<u2")',
        'want = x.astype("<f2").view("<u2")',
        'bad = np.nonzero(want != ours)[0]',
        'wide = ours.view("<f2").astype("<f4").view("<u4")',
        'print(len(bad), int(bad[0]) if len(bad) else -1, wide.tobytes().hex())',
      ].join('\n');
      const [mismatches, first, wideHex] = execFileSync('/usr/bin/python3', ['-c', script, f32Path, f16Path], {
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 1 << 24,
      })
        .trim()
        .split(' ');
      expect({ mismatches, first }).toEqual({ mismatches: '0', first: '-1' });
      expect(Buffer.from(decodeTensorBytes('F16', ours).buffer).toString('hex')).toBe(wideHex);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
