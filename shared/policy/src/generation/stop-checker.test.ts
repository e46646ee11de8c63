import { describe, expect, it } from 'vitest';
import { ByteTokenizer } from '../tokenizers/byte-tokenizer.ts';
import { StopChecker } from './stop-checker.ts';
import { arithmeticTokenizer } from '../tokenizers/tokenizer.ts';

const tok = arithmeticTokenizer();
const feed = (c: StopChecker, text: string) => {
  for (const id of tok.encode(text)) if (c.push(id, -1)) break;
};

describe('StopChecker', () => {
  it('stops on a stop id, keeping the id and dropping it from the text', () => {
    const c = new StopChecker(tok, new Set([tok.eosId]), [], 10);
    feed(c, '12');
    expect(c.push(tok.eosId, -0.5)).toBe(true);
    expect(c.ids).toEqual([5, 6, 2]);
    expect(c.logprobs).toEqual([-1, -1, -0.5]);
    expect(c.state).toEqual({ finishReason: 'stop', stopReason: tok.eosId, text: '12' });
  });

  it('drops the text of a non-special stop token too (vLLM)', () => {
    const c = new StopChecker(tok, new Set([tok.encode(',')[0]!]), [], 10);
    feed(c, '12,3');
    expect(c.ids).toEqual(tok.encode('12,'));
    expect(c.state.text).toBe('12');
  });

  it('stops on a stop string, cutting the text before it but keeping the ids', () => {
    const c = new StopChecker(tok, new Set(), [',3', ':'], 20);
    feed(c, '1,2,3,4');
    expect(c.state).toEqual({ finishReason: 'stop', stopReason: ',3', text: '1,2' });
    expect(tok.decode(c.ids)).toBe('1,2,3');
  });

  it('takes the earliest match when several stop strings end in the same token', () => {
    const c = new StopChecker(tok, new Set(), ['2,3', '3'], 20);
    feed(c, '12,3');
    expect(c.state.text).toBe('1');
    expect(c.state.stopReason).toBe('2,3');
  });

  it('finishes with length at the budget, and at once for a zero budget', () => {
    const c = new StopChecker(tok, new Set([tok.eosId]), ['9'], 3);
    feed(c, '1234');
    expect(c.ids).toHaveLength(3);
    expect(c.state.finishReason).toBe('length');
    expect(new StopChecker(tok, new Set(), [], 0).done).toBe(true);
  });

  it('finds a stop string that ends inside a multi-byte character sequence', () => {
    const bytes = new ByteTokenizer();
    const c = new StopChecker(bytes, new Set(), ['é!'], 20);
    let stopped = false;
    for (const id of bytes.encode('café!x')) if ((stopped = c.push(id, 0))) break;
    expect(stopped).toBe(true);
    expect(c.state.text).toBe('caf');
  });
});
