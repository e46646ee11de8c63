// Stored floating-point formats <-> Float32, bit-exact where the value fits.
// BF16 is the upper half of an f32; F16 is IEEE binary16 (5-bit exponent,
// subnormals, inf, nan). Narrowing rounds to nearest, ties to even, as torch's
// `.to(torch.bfloat16)` / `.half()` do; NaN stays NaN (quiet), overflow becomes inf.

/** Tensor dtypes this package reads and writes. */
export type StoredDtype = 'F32' | 'BF16' | 'F16';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

let f16Table: Uint32Array | undefined;

/** f32 bit patterns of all 65536 binary16 values (256 KiB, built on first use). */
function f16ToF32Table(): Uint32Array {
  if (f16Table !== undefined) return f16Table;
  const bits = new Uint32Array(65536);
  const asFloat = new Float32Array(bits.buffer);
  for (let h = 0; h < 65536; h++) {
    const sign = (h & 0x8000) << 16;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 0) {
      // Zero or subnormal: mant * 2^-24, exact in f32.
      asFloat[h] = mant * 2 ** -24;
      bits[h] = (bits[h] as number) | sign;
    } else if (exp === 31) {
      bits[h] = (sign | 0x7f800000 | (mant << 13)) >>> 0;
    } else {
      bits[h] = (sign | ((exp - 15 + 127) << 23) | (mant << 13)) >>> 0;
    }
  }
  f16Table = bits;
  return bits;
}

/** f32 bits -> bf16 bits, round to nearest even. */
export function f32BitsToBf16(bits: number): number {
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return ((bits >>> 16) | 0x40) & 0xffff;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** f32 bits -> binary16 bits, round to nearest even. */
export function f32BitsToF16(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant === 0 ? 0 : 0x200 | (mant >>> 13));
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal (or zero) in binary16: the mantissa with its implicit 1, in units of 2^-24.
    const shift = 14 - e;
    if (shift > 24) return sign;
    const m = mant | 0x800000;
    let half = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = sign | (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // A carry out of the mantissa moves into the exponent, up to inf: still nearest-even.
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1) === 1)) half++;
  return half;
}

/** Values as little-endian 16-bit words, whatever `bytes`' alignment. */
function words16(bytes: Uint8Array): Uint16Array {
  const n = bytes.length / 2;
  if (LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, n);
  const out = new Uint16Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) out[i] = view.getUint16(2 * i, true);
  return out;
}

/** A tensor's stored bytes -> a fresh Float32Array. */
export function decodeTensorBytes(dtype: StoredDtype, bytes: Uint8Array): Float32Array<ArrayBuffer> {
  if (dtype === 'F32') {
    const out = new Float32Array(bytes.length / 4);
    if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(bytes);
    else {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
    }
    return out;
  }
  const src = words16(bytes);
  const out = new Float32Array(src.length);
  const outBits = new Uint32Array(out.buffer);
  if (dtype === 'BF16') for (let i = 0; i < src.length; i++) outBits[i] = (src[i] as number) << 16;
  else {
    const table = f16ToF32Table();
    for (let i = 0; i < src.length; i++) outBits[i] = table[src[i] as number] as number;
  }
  return out;
}

/** Float32 values -> their stored little-endian bytes in `dtype`. */
export function encodeTensorBytes(dtype: StoredDtype, data: Float32Array): Uint8Array {
  const bits = new Uint32Array(data.length);
  new Float32Array(bits.buffer).set(data);
  if (dtype === 'F32') {
    if (LITTLE_ENDIAN) return new Uint8Array(bits.buffer);
    const out = new Uint8Array(data.length * 4);
    const view = new DataView(out.buffer);
    data.forEach((v, i) => view.setFloat32(4 * i, v, true));
    return out;
  }
  const narrow = dtype === 'BF16' ? f32BitsToBf16 : f32BitsToF16;
  const out = new Uint8Array(data.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < bits.length; i++) view.setUint16(2 * i, narrow(bits[i] as number), true);
  return out;
}
