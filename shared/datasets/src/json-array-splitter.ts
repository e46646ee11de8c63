import { AppError, ErrorCode } from '@rl/service-kit/core';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const malformed = (message: string) => new AppError(ErrorCode.BadRequest, message);

/**
 * Splits the text of one top-level JSON array, fed in chunks of any size, into
 * the source text of its elements, so a huge array file is parsed one record at
 * a time. It only tracks strings and bracket depth: each element's own syntax is
 * left to `JSON.parse`, so one bad element is one broken record, not a lost file.
 */
export class JsonArraySplitter {
  #state: 'before' | 'inside' | 'after' = 'before';
  #depth = 0;
  #inString = false;
  #escaped = false;
  #part = '';
  #elements = 0;

  /** Feeds the next chunk; returns the elements it completed, in order. */
  push(chunk: string): string[] {
    const out: string[] = [];
    let segStart = this.#state === 'inside' ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.#state !== 'inside') {
        if (isSpace(c)) continue;
        if (this.#state === 'before' && c === OPEN_BRACKET) {
          this.#state = 'inside';
          segStart = i + 1;
          continue;
        }
        throw malformed(this.#state === 'before' ? 'expected a JSON array or object' : 'unexpected text after the closing "]" of the array');
      }
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === BACKSLASH) this.#escaped = true;
        else if (c === QUOTE) this.#inString = false;
        continue;
      }
      if (c === QUOTE) this.#inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && this.#depth > 0) this.#depth--;
      else if (this.#depth === 0 && (c === COMMA || c === CLOSE_BRACKET)) {
        const text = (this.#part + chunk.slice(segStart, i)).trim();
        this.#part = '';
        segStart = i + 1;
        // `[]` has no element; an empty slot elsewhere (`[1,,2]`, `[1,]`) is a broken record.
        if (!(c === CLOSE_BRACKET && text === '' && this.#elements === 0)) {
          out.push(text);
          this.#elements++;
        }
        if (c === CLOSE_BRACKET) this.#state = 'after';
      }
    }
    if (this.#state === 'inside' && segStart >= 0) this.#part += chunk.slice(segStart);
    return out;
  }

  /** Call at end of input: throws if the array never closed. */
  end(): void {
    if (this.#state === 'before') throw malformed('the file is empty');
    if (this.#state === 'inside') throw malformed('the array is not closed (is the file truncated?)');
  }
}
