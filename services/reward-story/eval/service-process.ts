import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';

/**
 * The real reward-story service as a child process, HTTP only (`NATS_ENABLED=false`),
 * on a free loopback port, scoring with the given model directory: the same
 * process `make up` runs, so the evaluation measures what users deploy.
 */

/** Options of {@link startStoryService}. */
export interface StartOptions {
  modelDir: string;
  /** How long start-up (model load included) may take. @default 120000 */
  startTimeoutMs?: number;
  /** Extra environment for the service (e.g. `STORY_WEIGHTS`). */
  env?: Record<string, string>;
}

/** A running service; `stop()` kills its process group. */
export interface StoryServiceProcess {
  baseUrl: string;
  /** `extra.model` the service reports: the model directory's name. */
  modelId: string;
  stop(): Promise<void>;
}

const SERVICE_DIR = join(import.meta.dirname, '..');
const LogLine = z.looseObject({ msg: z.string(), port: z.number().optional(), model: z.string().optional() });

/** Starts the service and resolves once it listens and its model has loaded. */
export async function startStoryService(options: StartOptions): Promise<StoryServiceProcess> {
  const env = { ...process.env, ...options.env, PORT: '0', HOST: '127.0.0.1', NATS_ENABLED: 'false', LOG_LEVEL: 'info', STORY_MODEL_DIR: options.modelDir };
  const proc = spawn(process.execPath, ['src/main.ts'], { cwd: SERVICE_DIR, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      try {
        process.kill(-(proc.pid ?? 0), 'SIGKILL');
      } catch {
        resolve();
      }
    });

  let port: number | undefined;
  let modelId: string | undefined;
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const onLine = (line: string) => {
    output.push(line);
    let parsed: z.infer<typeof LogLine> | undefined;
    try {
      parsed = LogLine.safeParse(JSON.parse(line)).data;
    } catch {
      return;
    }
    if (parsed?.msg === 'listening') port = parsed.port;
    if (parsed?.msg === 'model loaded') modelId = parsed.model;
    if (port !== undefined && modelId !== undefined) resolve();
  };
  createInterface({ input: proc.stdout }).on('line', onLine);
  createInterface({ input: proc.stderr }).on('line', (l) => output.push(l));
  proc.once('exit', (code) => reject(new Error(`reward-story exited (code ${code}) before it was ready:\n${output.slice(-20).join('\n')}`)));
  const timer = setTimeout(
    () => reject(new Error(`reward-story not ready within ${options.startTimeoutMs ?? 120_000} ms:\n${output.slice(-20).join('\n')}`)),
    options.startTimeoutMs ?? 120_000,
  );
  try {
    await promise;
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return { baseUrl: `http://127.0.0.1:${port}`, modelId: modelId!, stop };
}
