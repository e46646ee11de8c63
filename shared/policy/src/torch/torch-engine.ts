// The PyTorch engine (shared/python/rl_torch_engine) as a child process:
// one request in flight at a time, answered in order over binary frames
// (frames.ts). Every wait has a timeout; a child that exits, is killed or
// stops answering fails what is pending with an error, never a hang, and is
// not used again.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AppError, ErrorCode, isErrorCode } from '@rl/service-kit/core';
import type { TokenPair } from '../generation/score.ts';
import { encodeFrame, type Frame, FrameReader, type WireData } from './frames.ts';

/** The directory holding the rl_torch_engine package (put on the child's PYTHONPATH). */
const PYTHON_PACKAGES = fileURLToPath(new URL('../../../python', import.meta.url));
/** Debian's python3, where `make test` installs python3-torch. */
const DEFAULT_PYTHON = '/usr/bin/python3';
const STDERR_TAIL_BYTES = 4096;

/** Options of {@link TorchEngine.start}. */
export interface TorchEngineOptions {
  /** The Python that has torch. @default $RL_TORCH_PYTHON, else /usr/bin/python3 */
  python?: string;
  /** The whole command instead of `<python> -m rl_torch_engine serve --device <device>`. */
  command?: readonly string[];
  /** @default 'auto' (CUDA when torch sees a GPU, else CPU) */
  device?: 'auto' | 'cpu' | 'cuda';
  /**
   * Processes on this machine, one per GPU on CUDA (verl's trainer.n_gpus_per_node): the child is rank 0 and starts
   * the others; each forward's pairs are split among them and the gradients summed before each step (data parallel,
   * the weights replicated). @default 1
   */
  worldSize?: number;
  /** With worldSize > 1: how long a collective waits for a slower rank before the request fails. @default 300 s */
  collectiveTimeoutMs?: number;
  /** Until the child's hello (importing torch). @default 120 s */
  startupTimeoutMs?: number;
  /** Per request (opening a model, scoring a batch). @default 600 s */
  requestTimeoutMs?: number;
}

/** What `open` answers: the model the engine holds. */
export interface OpenedModel {
  architecture: string;
  vocabSize: number;
  maxSeqLen: number;
  /** A critic (one-label ...ForTokenClassification): it answers values. */
  valueHead: boolean;
}

/** The generate op's sampling settings (vLLM's names; temperature 0 is greedy, top_k 0 or -1 off). */
export interface GenerateSettings {
  max_tokens: number;
  temperature: number;
  top_k: number;
  top_p: number;
  stop_token_ids: number[];
}

/** One row the generate op answered: its tokens (a stop id kept), their log-probs before temperature, why it ended. */
export interface GeneratedRow {
  ids: Int32Array;
  logprobs: Float32Array;
  finishReason: 'stop' | 'length';
  stopId: number | null;
}

/** The cost of the process boundary for one operation, summed over its requests. */
export interface BoundaryCost {
  requests: number;
  /** From sending the request to decoding the answer, in this process. */
  wallMs: number;
  /** What the engine reports it spent on the requests (elapsed_ms): wall minus this is the boundary's cost. */
  engineMs: number;
  /** Frame bytes sent and received. */
  bytesOut: number;
  bytesIn: number;
}

interface Pending {
  resolve: (frame: Frame) => void;
  reject: (err: AppError) => void;
  timer: NodeJS.Timeout;
}

/** A running engine child. */
export class TorchEngine {
  private readonly reader = new FrameReader();
  private readonly pending: Pending[] = [];
  private stderrTail = '';
  private failure: AppError | null = null;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly requestTimeoutMs: number;
  private readonly what: string;
  private readonly costs = new Map<string, BoundaryCost>();
  #worldSize = 1;
  #device = 'cpu';

  private constructor(child: ChildProcessWithoutNullStreams, requestTimeoutMs: number, what: string) {
    this.child = child;
    this.requestTimeoutMs = requestTimeoutMs;
    this.what = what;
    child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    child.on('error', (err) => this.fail(new AppError(ErrorCode.Unavailable, `torch engine: cannot start ${this.what}: ${err.message}`)));
    // 'close' comes after the child's output has been read to the end, so no answer is lost to it.
    child.on('close', (code, signal) => {
      const how = signal === null ? `exit status ${code}` : `signal ${signal}`;
      const tail = this.stderrTail.trim();
      this.fail(new AppError(ErrorCode.Unavailable, `torch engine: the child process (${this.what}) exited (${how})${tail === '' ? '' : `: ${tail}`}`));
    });
    child.stdin.on('error', () => {}); // a dead child's broken pipe; the exit event reports it
  }

  /** Starts the child and waits for its hello. */
  static async start(options: TorchEngineOptions = {}): Promise<TorchEngine> {
    const python = options.python ?? process.env.RL_TORCH_PYTHON ?? DEFAULT_PYTHON;
    const [cmd, ...args] = options.command ?? [python, '-m', 'rl_torch_engine', 'serve', '--device', options.device ?? 'auto', ...groupArgs(options)];
    const pythonPath = [PYTHON_PACKAGES, process.env.PYTHONPATH].filter((p) => p !== undefined && p !== '').join(':');
    const child = spawn(cmd as string, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONPATH: pythonPath } });
    const engine = new TorchEngine(child, options.requestTimeoutMs ?? 600_000, cmd as string);
    const hello = await engine.expect('starting', options.startupTimeoutMs ?? 120_000);
    if (hello.header.engine !== 'torch') {
      engine.close();
      throw new AppError(ErrorCode.Unavailable, `torch engine: ${cmd} did not answer as rl_torch_engine`);
    }
    engine.#worldSize = typeof hello.header.world_size === 'number' ? hello.header.world_size : 1;
    engine.#device = typeof hello.header.device === 'string' ? hello.header.device : 'cpu';
    return engine;
  }

  /** The processes the engine runs as (its hello says). */
  get worldSize(): number {
    return this.#worldSize;
  }

  /** The device the engine computes on (its hello says: "cpu", "cuda", "cuda:0"). */
  get device(): string {
    return this.#device;
  }

  /** The child's process id (undefined if it never started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Loads a model directory (config.json and safetensors weights), with a PEFT LoRA adapter directory applied when
   * `adapter` names one; the other settings are the open op's (train, optimizer, gradient_checkpointing, ...).
   */
  async open(dir: string, settings: { adapter?: string } & Record<string, unknown> = {}): Promise<OpenedModel> {
    const { adapter } = settings;
    const answer = await this.request(
      { ...settings, op: 'open', model: dir },
      {},
      `opening ${dir}${adapter === undefined ? '' : ` with the adapter ${adapter}`}`,
    );
    const c = answer.header.config as { architecture: string; vocab_size: number; max_position_embeddings: number; value_head: boolean };
    return { architecture: c.architecture, vocabSize: c.vocab_size, maxSeqLen: c.max_position_embeddings, valueHead: c.value_head };
  }

  /** Per pair, the response tokens' log-probs and entropies. */
  async score(pairs: readonly TokenPair[]): Promise<Array<{ logprobs: Float32Array; entropies: Float32Array }>> {
    const tensors = pairTensors(pairs);
    const responseLengths = tensors.response_lengths;
    const answer = await this.request({ op: 'score' }, tensors, `scoring ${pairs.length} pairs`);
    const logprobs = answer.tensors.get('logprobs');
    const entropies = answer.tensors.get('entropies');
    const total = responseLengths.reduce((n, l) => n + l, 0);
    if (!(logprobs instanceof Float32Array) || !(entropies instanceof Float32Array) || logprobs.length !== total || entropies.length !== total) {
      throw new AppError(ErrorCode.Internal, `torch engine: the score answer does not hold ${total} log-probs and entropies`);
    }
    let at = 0;
    return Array.from(responseLengths, (n) => {
      const out = { logprobs: logprobs.subarray(at, at + n), entropies: entropies.subarray(at, at + n) };
      at += n;
      return out;
    });
  }

  /** Per pair, a critic's values of the states before its response tokens (a model with a value head). */
  async values(pairs: readonly TokenPair[]): Promise<Float32Array[]> {
    const tensors = pairTensors(pairs);
    const answer = await this.request({ op: 'score', leaves: ['values'] }, tensors, `values of ${pairs.length} pairs`);
    const values = answer.tensors.get('values');
    const total = tensors.response_lengths.reduce((n, l) => n + l, 0);
    if (!(values instanceof Float32Array) || values.length !== total)
      throw new AppError(ErrorCode.Internal, `torch engine: the answer does not hold ${total} values`);
    let at = 0;
    return Array.from(tensors.response_lengths, (n) => {
      const part = values.subarray(at, at + n);
      at += n;
      return part;
    });
  }

  /** A continuation of every prompt from the generate op (each row from its seed in `rowSeeds`). */
  async generate(prompts: readonly (readonly number[])[], settings: GenerateSettings, rowSeeds: Int32Array): Promise<GeneratedRow[]> {
    const tensors = { prompt_lengths: Int32Array.from(prompts, (p) => p.length), ids: Int32Array.from(prompts.flat()), row_seeds: rowSeeds };
    const answer = await this.request({ op: 'generate', ...settings }, tensors, `generating for ${prompts.length} prompts`);
    const lengths = answer.tensors.get('lengths');
    const ids = answer.tensors.get('ids');
    const logprobs = answer.tensors.get('logprobs');
    const { finish_reasons: finish, stop_ids: stopIds } = answer.header as { finish_reasons?: unknown; stop_ids?: unknown };
    const total = lengths instanceof Int32Array ? lengths.reduce((n, l) => n + l, 0) : -1;
    if (
      !(lengths instanceof Int32Array && ids instanceof Int32Array && logprobs instanceof Float32Array) ||
      lengths.length !== prompts.length ||
      ids.length !== total ||
      logprobs.length !== total ||
      !Array.isArray(finish) ||
      !Array.isArray(stopIds) ||
      finish.length !== prompts.length ||
      stopIds.length !== prompts.length
    ) {
      throw new AppError(ErrorCode.Internal, `torch engine: the generate answer does not hold ${prompts.length} rows`);
    }
    let at = 0;
    return Array.from(lengths, (n, i) => {
      const row = {
        ids: ids.subarray(at, at + n),
        logprobs: logprobs.subarray(at, at + n),
        finishReason: finish[i] === 'stop' ? ('stop' as const) : ('length' as const),
        stopId: typeof stopIds[i] === 'number' ? (stopIds[i] as number) : null,
      };
      at += n;
      return row;
    });
  }

  /** Why the child can no longer be used (it exited, was killed, stopped answering, or was closed); null while it serves. */
  get failed(): AppError | null {
    return this.failure;
  }

  /** Ends the child (its stdin closes; it exits); pending requests fail. */
  close(): void {
    this.fail(new AppError(ErrorCode.Unavailable, 'torch engine: closed'));
    this.child.stdin.end();
    // A child that does not leave on end of input is killed.
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    timer.unref();
    this.child.once('close', () => clearTimeout(timer));
  }

  /** The boundary's cost per operation so far. */
  boundaryCosts(): Record<string, BoundaryCost> {
    return Object.fromEntries([...this.costs].map(([op, c]) => [op, { ...c }]));
  }

  /** Sends one request (`header.op` names the operation) and waits for its answer; an error answer throws its AppError. */
  async request(header: Record<string, unknown>, tensors: Record<string, WireData>, doing: string): Promise<Frame> {
    if (this.failure !== null) throw this.failure;
    const began = performance.now();
    const answer = this.expect(doing, this.requestTimeoutMs);
    const sent = encodeFrame(header, tensors);
    this.child.stdin.write(sent);
    const frame = await answer;
    const op = String(header.op);
    const cost = this.costs.get(op) ?? { requests: 0, wallMs: 0, engineMs: 0, bytesOut: 0, bytesIn: 0 };
    cost.requests += 1;
    cost.wallMs += performance.now() - began;
    cost.engineMs += typeof frame.header.elapsed_ms === 'number' ? frame.header.elapsed_ms : 0;
    cost.bytesOut += sent.length;
    cost.bytesIn += frame.bytes;
    this.costs.set(op, cost);
    if (frame.header.ok !== true) {
      const error = (frame.header.error ?? {}) as { code?: unknown; message?: unknown };
      throw new AppError(isErrorCode(error.code) ? error.code : ErrorCode.Internal, `torch engine: ${String(error.message ?? 'failed without a message')}`);
    }
    return frame;
  }

  private expect(doing: string, timeoutMs: number): Promise<Frame> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // The child is out of step once an answer is abandoned: it is not used again.
        this.fail(new AppError(ErrorCode.Timeout, `torch engine: no answer ${doing} within ${timeoutMs} ms; the child process was stopped`));
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.pending.push({ resolve, reject, timer });
    });
  }

  private onData(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      this.fail(err as AppError);
      this.child.kill('SIGKILL');
      return;
    }
    for (const frame of frames) {
      const next = this.pending.shift();
      if (next === undefined) {
        this.fail(new AppError(ErrorCode.Internal, 'torch engine: an answer nobody asked for'));
        this.child.kill('SIGKILL');
        return;
      }
      clearTimeout(next.timer);
      next.resolve(frame);
    }
  }

  private fail(err: AppError): void {
    this.failure ??= err;
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }
}

/** `--world-size N --timeout-s T` for more than one process; refuses a count or timeout that is not one. */
function groupArgs(options: TorchEngineOptions): string[] {
  const { worldSize = 1, collectiveTimeoutMs } = options;
  if (!Number.isInteger(worldSize) || worldSize < 1) {
    throw new AppError(ErrorCode.ValidationFailed, `torch engine: worldSize must be an integer >= 1 (got ${worldSize})`);
  }
  if (collectiveTimeoutMs !== undefined && !(collectiveTimeoutMs > 0 && Number.isFinite(collectiveTimeoutMs))) {
    throw new AppError(ErrorCode.ValidationFailed, `torch engine: collectiveTimeoutMs must be a positive number of ms (got ${collectiveTimeoutMs})`);
  }
  if (worldSize === 1) return [];
  return ['--world-size', String(worldSize), ...(collectiveTimeoutMs === undefined ? [] : ['--timeout-s', String(collectiveTimeoutMs / 1000)])];
}

/** Pairs on the wire: I32 prompt_lengths [N], response_lengths [N] and ids [each prompt then its response, pair after pair]. */
export function pairTensors(pairs: readonly TokenPair[]): { prompt_lengths: Int32Array; response_lengths: Int32Array; ids: Int32Array } {
  return {
    prompt_lengths: Int32Array.from(pairs, (p) => p.prompt.length),
    response_lengths: Int32Array.from(pairs, (p) => p.response.length),
    ids: Int32Array.from(pairs.flatMap((p) => [...p.prompt, ...p.response])),
  };
}
