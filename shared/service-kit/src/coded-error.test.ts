import { describe, expect, it } from 'vitest';
import { CodedError } from './errors.ts';

class ExampleError extends CodedError<'a' | 'b'> {
  override readonly name = 'ExampleError';
}

describe('CodedError', () => {
  it('keeps the code, message, cause and the subclass name and type', () => {
    const cause = new Error('root');
    const err = new ExampleError('b', 'went wrong', { cause });
    expect(err).toBeInstanceOf(ExampleError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'ExampleError', code: 'b', message: 'went wrong', cause });
    expect(String(err)).toBe('ExampleError: went wrong');
  });
});
