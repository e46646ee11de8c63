import { describe, expect, it } from 'vitest';
import { resolveSampling } from './sampling-params.ts';

describe('resolveSampling', () => {
  const seed = () => 5;

  it("stops on every one of the tokenizer's eos ids unless the request names its own", () => {
    expect([...resolveSampling({ maxTokens: 4 }, [151645, 151643], 151669, seed).stopTokenIds]).toEqual([151645, 151643]);
    expect([...resolveSampling({ maxTokens: 4, stopTokenIds: [7] }, [151645, 151643], 151669, seed).stopTokenIds]).toEqual([7]);
  });

  it('refuses a stop id outside the vocabulary, naming it', () => {
    expect(() => resolveSampling({ maxTokens: 4, stopTokenIds: [1, 20] }, [2], 16, seed)).toThrow(/stopTokenIds\.1/);
  });
});
