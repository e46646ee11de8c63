// Wire format between the host and zygote.py. Requests on the zygote's stdin:
// an 8-byte big-endian payload length, then the payload (4-byte meta length,
// meta JSON, the blobs back to back). The zygote itself reads only the length;
// the per-run supervisor it forks reads the payload. Frames on its stdout:
// 1 type byte, 4-byte length, body.

import { z } from 'zod';

/** rlimits of the program (units as in the names). */
export interface ZygoteLimits {
  cpu_s: number;
  as_mb: number;
  stack_mb: number;
  file_bytes: number;
  open_files: number;
  processes: number;
}

/** Everything one run needs besides its blobs. */
export interface ZygoteRunMeta {
  /** File name of the code in the work dir (`tmpXXXX.py`). */
  source: string;
  limits: ZygoteLimits;
  tmp_bytes: number;
  shm_bytes: number;
  max_output: number;
  max_fetch_bytes: number;
  setup_timeout_ms: number;
  run_timeout_ms: number;
  fetch: string[];
  /** [work-dir-relative path, byte length] per blob, in order; the name `\0stdin` is the program's stdin. */
  blobs: Array<[string, number]>;
}

/** Name of the stdin blob (a NUL cannot appear in a validated path). */
export const STDIN_BLOB = '\0stdin';

/** Encodes one run request. */
export function encodeRun(meta: ZygoteRunMeta, blobs: Uint8Array[]): Buffer {
  const m = Buffer.from(JSON.stringify(meta), 'utf8');
  const payloadBytes = 4 + m.length + blobs.reduce((n, b) => n + b.length, 0);
  const head = Buffer.alloc(12);
  head.writeBigUInt64BE(BigInt(payloadBytes), 0);
  head.writeUInt32BE(m.length, 8);
  return Buffer.concat([head, m, ...blobs]);
}

/** One frame from the zygote. */
export interface Frame {
  kind: 'H' | 'R' | 'X';
  body: Buffer;
}

/** Splits the zygote's stdout into frames; throws on a frame type it does not know. */
export class FrameReader {
  #buf: Buffer = Buffer.alloc(0);
  readonly maxFrameBytes: number;

  constructor(maxFrameBytes: number) {
    this.maxFrameBytes = maxFrameBytes;
  }

  push(chunk: Buffer): Frame[] {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const out: Frame[] = [];
    while (this.#buf.length >= 5) {
      const kind = String.fromCharCode(this.#buf[0]!);
      if (kind !== 'H' && kind !== 'R' && kind !== 'X') throw new Error(`zygote sent an unknown frame type ${JSON.stringify(kind)}`);
      const len = this.#buf.readUInt32BE(1);
      if (len > this.maxFrameBytes) throw new Error(`zygote frame of ${len} bytes is over the ${this.maxFrameBytes}-byte cap`);
      if (this.#buf.length < 5 + len) break;
      out.push({ kind, body: this.#buf.subarray(5, 5 + len) });
      this.#buf = this.#buf.subarray(5 + len);
    }
    return out;
  }
}

/** What B (the run's pid 1) reports about the program. */
const InitReport = z.object({
  exit: z.number().int().optional(),
  signal: z.number().int().optional(),
  cpu_s: z.number().optional(),
  run_s: z.number().optional(),
  files: z.record(z.string(), z.string()).optional(),
  files_dropped: z.boolean().optional(),
  error: z.string().optional(),
});

/** Header of an R frame (written by the run's supervisor, outside the program's reach). */
export const ResultHead = z.object({
  timed_out: z.enum(['setup', 'run']).nullable(),
  started: z.boolean(),
  wall_s: z.number(),
  init_status: z.number().int(),
  stdout_seen: z.number().int(),
  stderr_seen: z.number().int(),
  stdout_bytes: z.number().int().min(0),
  stderr_bytes: z.number().int().min(0),
  /** The run cgroup (0 or 1) the program was sent to join; null without cgroups. */
  run_cgroup: z.number().int().nullable(),
  report: InitReport,
});
export type ResultHead = z.infer<typeof ResultHead>;

/** A decoded R frame. */
export interface RunResult {
  head: ResultHead;
  stdout: Buffer;
  stderr: Buffer;
}

/** Decodes an R frame body. */
export function decodeResult(body: Buffer): RunResult {
  const headLen = body.readUInt32BE(0);
  const head = ResultHead.parse(JSON.parse(body.subarray(4, 4 + headLen).toString('utf8')));
  const start = 4 + headLen;
  const stdout = body.subarray(start, start + head.stdout_bytes);
  const stderr = body.subarray(start + head.stdout_bytes, start + head.stdout_bytes + head.stderr_bytes);
  return { head, stdout, stderr };
}

/** Exit status of a run's supervisor (X frame). */
export const ExitFrame = z.object({ status: z.number().int() });
