// Parser for the supervisor's report channel (fd 3; protocol in supervisor.ts).
// The channel is untrusted (the program can write to it), so every marker is
// validated, only plausible transitions are reported, and the total is capped.

import { LineSplitter } from './output.ts';

/** Callbacks fired as markers arrive (each at most once, except onRunEnd). */
export interface ReportHooks {
  onStart(): void;
  onCompiled(returnCode: number): void;
  onRunEnd(returnCode: number): void;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const TIMES = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/;

/** Accumulates what the supervisor reported. */
export class ReportParser {
  readonly files = new Map<number, string>();
  /** Children CPU seconds (user+sys) after each `times` report, in order. */
  readonly cpu: number[] = [];
  #splitter: LineSplitter;
  #hooks: ReportHooks;
  #fetchCount: number;
  #started = false;
  #compiled = false;
  #expect: { kind: 'line' } | { kind: 'file'; index: number } | { kind: 'times'; left: number } = { kind: 'line' };

  constructor(cap: number, fetchCount: number, hooks: ReportHooks) {
    this.#hooks = hooks;
    this.#fetchCount = fetchCount;
    this.#splitter = new LineSplitter(cap, (line) => this.#line(line.toString('latin1')));
  }

  /** True when the channel went over its cap (fetched files may be missing). */
  get overflowed(): boolean {
    return this.#splitter.overflowed;
  }

  /** Feeds raw bytes from the channel. */
  push(chunk: Buffer): void {
    this.#splitter.push(chunk);
  }

  #line(line: string): void {
    const expect = this.#expect;
    if (expect.kind === 'file') {
      this.#expect = { kind: 'line' };
      if (BASE64.test(line)) this.files.set(expect.index, line);
      return;
    }
    if (expect.kind === 'times') {
      // First line: the shell's own times; second: its children's (what we want).
      this.#expect = expect.left > 1 ? { kind: 'times', left: expect.left - 1 } : { kind: 'line' };
      const m = expect.left === 1 ? TIMES.exec(line) : null;
      if (m !== null) {
        const s = (min: string | undefined, sec: string | undefined) => Number(min) * 60 + Number(sec);
        this.cpu.push(s(m[1], m[2]) + s(m[3], m[4]));
      }
      return;
    }
    const [tag, arg] = line.split(' ');
    const n = arg !== undefined && /^\d{1,6}$/.test(arg) ? Number(arg) : null;
    if (tag === 'S' && !this.#started) {
      this.#started = true;
      this.#hooks.onStart();
    } else if (tag === 'C' && n !== null && this.#started && !this.#compiled) {
      this.#compiled = true;
      this.#hooks.onCompiled(n);
    } else if (tag === 'R' && n !== null && this.#started) {
      this.#hooks.onRunEnd(n);
    } else if (tag === 'T') {
      this.#expect = { kind: 'times', left: 2 };
    } else if (tag === 'F' && n !== null && n < this.#fetchCount) {
      this.#expect = { kind: 'file', index: n };
    }
  }
}
