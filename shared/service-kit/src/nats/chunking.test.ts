import { describe, expect, it } from 'vitest';
import { splitChunks } from './chunking.ts';

describe('splitChunks', () => {
  it('keeps a payload within the limit whole', () => {
    const data = new Uint8Array([1, 2, 3]);
    expect(splitChunks(data, 3)).toEqual([data]);
  });

  it('splits into consecutive chunks of at most the limit that concatenate back', () => {
    const data = Uint8Array.from({ length: 10 }, (_, i) => i);
    const chunks = splitChunks(data, 4);
    expect(chunks.map((c) => c.length)).toEqual([4, 4, 2]);
    expect(Uint8Array.from(chunks.flatMap((c) => [...c]))).toEqual(data);
  });

  it('returns one empty chunk for an empty payload', () => {
    expect(splitChunks(new Uint8Array(0), 4)).toHaveLength(1);
  });
});
