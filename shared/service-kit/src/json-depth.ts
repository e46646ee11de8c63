// A nesting limit for JSON text from clients. JSON.parse itself copes with any
// depth, but structuredClone, JSON.stringify and every recursive walk after it
// overflow the stack somewhere past a few thousand levels: a 20 KB body of
// `[[[[…]]]]` would otherwise surface as a 500 from wherever it first recurses.
// The check scans the text (no parse), skipping strings whole; the path is
// worked out only for a refusal.
import { AppError, ErrorCode } from './errors.ts';

/** Deepest nesting of arrays and objects a request body or NATS payload may have. */
const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

interface Frame {
  array: boolean;
  /** Array: index of the current element. Object: the current key, once read. */
  at: number | string | undefined;
  expectingKey: boolean;
}

/** Index just past the string that opens at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    let slashes = 0;
    for (let j = q - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

function pathOf(frames: readonly Frame[]): string {
  let out = '';
  for (const f of frames) {
    if (f.at === undefined) continue;
    out += typeof f.at === 'number' ? `[${f.at}]` : out === '' ? f.at : `.${f.at}`;
    if (out.length > 200) return `${out.slice(0, 200)}…`;
  }
  return out === '' ? '(root)' : out;
}

/** Whether `text` opens more than `maxDepth` nested arrays/objects; strings are skipped whole. */
function nestsDeeper(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i) - 1;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The path at which `text` first nests deeper than `maxDepth` (the slow pass, run only on a refusal). */
function deepPath(text: string, maxDepth: number): string {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = frames.at(-1);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (top !== undefined && !top.array && top.expectingKey) {
        try {
          top.at = JSON.parse(text.slice(i, end)) as string;
        } catch {
          top.at = text.slice(i + 1, end - 1);
        }
        top.expectingKey = false;
      }
      i = end - 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (frames.length >= maxDepth) break;
      frames.push({ array: c === OPEN_ARRAY, at: c === OPEN_ARRAY ? 0 : undefined, expectingKey: c === OPEN_OBJECT });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      frames.pop();
    } else if (c === COMMA && top !== undefined) {
      if (top.array) top.at = (top.at as number) + 1;
      else top.expectingKey = true;
    } else if (c === COLON && top !== undefined) {
      top.expectingKey = false;
    }
  }
  return pathOf(frames);
}

/**
 * Throws a 400 `validation_failed` naming where `text` (JSON, possibly
 * malformed: the parser reports that) nests deeper than `maxDepth`.
 */
export function assertJsonDepth(text: string, where = 'body', maxDepth = MAX_JSON_DEPTH): void {
  if (!nestsDeeper(text, maxDepth)) return;
  const path = deepPath(text, maxDepth);
  throw new AppError(ErrorCode.ValidationFailed, `invalid ${where}: ${path} nests deeper than ${maxDepth} levels`, {
    details: { issues: [{ path, message: `nests deeper than ${maxDepth} levels` }] },
  });
}
