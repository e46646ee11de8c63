// A stand-in for vLLM / SGLang over real HTTP: their weight-loading admin
// endpoints and the token-mode OpenAI API the generation service uses, served
// by the project's own embedded engine from exactly the directory each admin
// call names (loadModelDir), so a test sees which weights the server was handed.
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type EmbeddedPolicy, loadModelDir, mergeAdapter, type PolicyWeights, policyFromWeights, readAdapterDir } from '@rl/policy';

/** One admin call as the server received it. */
export interface AdminCall {
  path: string;
  body: Record<string, unknown>;
}

/** One completion as the server served it. */
export interface ServedCompletion {
  /** `model` of the request: the base model's name or a LoRA adapter's. */
  model: string;
  /** Which load made the weights that served it: an index into `loaded` and `loadedFiles`. */
  load: number;
  prompt: number[];
  tokenIds: number[];
}

/** A canned failure of the next calls to `path`. */
export interface Failure {
  path: string;
  status: number;
  body: unknown;
  /** The call takes effect and only its answer is lost (an admin call; the answer is the failure). */
  afterEffect?: boolean;
  /** How many calls fail. @default 1 */
  times?: number;
}

export interface FakeInferenceServer {
  /** Base URL with `/v1`, as OPENAI_BASE_URL takes it. */
  baseUrl: string;
  /** Admin calls in arrival order. */
  calls: AdminCall[];
  /** Directories loaded, in order. */
  loaded: string[];
  /** The files of each directory of `loaded` (name to bytes) as the server read them; the sync may delete them later. */
  loadedFiles: Array<Record<string, Buffer>>;
  /** Completions in the order they were served. */
  completions: ServedCompletion[];
  /** LoRA adapters loaded now, by name. */
  adapterNames(): string[];
  failNext(f: Failure): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' }).end(text);
}

async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Json);
}

/** vLLM's error body. */
const vllmError = (status: number, message: string) => ({ error: { message, type: 'BadRequestError', code: status } });

/**
 * Starts the fake on 127.0.0.1; `model` is the served model name. With
 * `baseDir` the base model is loaded at start (`--model`, for LoRA adapters);
 * without, nothing is served until a load call.
 */
export async function startFakeInferenceServer(model: string, options: { baseDir?: string } = {}): Promise<FakeInferenceServer> {
  const calls: AdminCall[] = [];
  const loaded: string[] = [];
  const loadedFiles: Array<Record<string, Buffer>> = [];
  const completions: ServedCompletion[] = [];
  const failures: Failure[] = [];
  let base: PolicyWeights | undefined;
  let policy: EmbeddedPolicy | undefined;
  /** LoRA adapters by lora_name: the base with the adapter merged, which is what vLLM's LoRA layers compute. */
  const adapters = new Map<string, EmbeddedPolicy>();
  const loadOf = new WeakMap<EmbeddedPolicy, number>();

  async function filesOf(dir: string): Promise<Record<string, Buffer>> {
    const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    return Object.fromEntries(await Promise.all(names.sort().map(async (n) => [n, await readFile(join(dir, n))] as const)));
  }

  async function load(dir: string): Promise<void> {
    const files = await filesOf(dir);
    const weights = await loadModelDir(dir);
    const next = await policyFromWeights(weights);
    policy?.dispose();
    base = weights;
    policy = next;
    loadOf.set(next, loaded.length);
    loaded.push(dir);
    loadedFiles.push(files);
  }
  if (options.baseDir !== undefined) await load(options.baseDir);

  function serving(body: Json): EmbeddedPolicy {
    const name = body.model ?? model;
    const found = name === model ? policy : adapters.get(String(name));
    if (name !== model && found === undefined) throw Object.assign(new Error(`The model \`${String(name)}\` does not exist.`), { status: 404 });
    if (found === undefined) throw Object.assign(new Error('no weights loaded'), { status: 503 });
    return found;
  }

  const admin: Record<string, (body: Json, res: ServerResponse) => Promise<void>> = {
    '/update_weights_from_disk': async (body, res) => {
      try {
        await load(String(body.model_path));
        send(res, 200, { success: true, message: 'Succeeded to update model weights.', num_paused_requests: 0 });
      } catch (err) {
        send(res, 400, { success: false, message: `Failed to update weights: ${(err as Error).message}`, num_paused_requests: 0 });
      }
    },
    '/collective_rpc': async (body, res) => {
      const kwargs = (body.kwargs ?? {}) as Json;
      if (body.method !== 'reload_weights' || typeof kwargs.weights_path !== 'string') return send(res, 400, { detail: 'unsupported call' });
      await load(kwargs.weights_path);
      send(res, 200, { results: [null] });
    },
    '/reset_prefix_cache': async (_body, res) => {
      res.writeHead(200).end();
    },
    '/v1/load_lora_adapter': async (body, res) => {
      const name = String(body.lora_name);
      if (adapters.has(name)) return send(res, 400, vllmError(400, `The lora adapter '${name}' has already been loaded.`));
      if (base === undefined) return send(res, 400, vllmError(400, 'no base model'));
      const dir = String(body.lora_path);
      const files = await filesOf(dir);
      const adapter = await readAdapterDir(dir);
      const merged = await policyFromWeights(mergeAdapter(base, adapter, adapter.configFile));
      adapters.set(name, merged);
      loadOf.set(merged, loaded.length);
      loaded.push(dir);
      loadedFiles.push(files);
      send(res, 200, `Success: LoRA adapter '${name}' added successfully.`);
    },
    '/v1/unload_lora_adapter': async (body, res) => {
      const name = String(body.lora_name);
      const p = adapters.get(name);
      if (p === undefined) return send(res, 404, vllmError(404, `The lora adapter '${name}' cannot be found.`));
      p.dispose();
      adapters.delete(name);
      send(res, 200, `Success: LoRA adapter '${name}' removed successfully.`);
    },
  };

  const api: Record<string, (body: Json) => Promise<unknown>> = {
    '/tokenize': async (body) => {
      const p = serving(body);
      const tokens = Array.isArray(body.messages)
        ? p.tokenizer.applyChatTemplate(body.messages as never, {
            addGenerationPrompt: body.add_generation_prompt !== false,
            ...(Array.isArray(body.tools) && { tools: body.tools as never }),
            ...(body.chat_template_kwargs !== undefined && { templateArgs: body.chat_template_kwargs as Json }),
          })
        : p.tokenizer.encode(String(body.prompt));
      return { count: tokens.length, max_model_len: p.maxSequenceLength, tokens };
    },
    '/detokenize': async (body) => ({ prompt: serving(body).tokenizer.decode(body.tokens as number[], { keepSpecial: true }) }),
    '/v1/completions': async (body) => {
      const p = serving(body);
      if (!Array.isArray(body.prompt) || !body.prompt.every((x) => typeof x === 'number'))
        throw Object.assign(new Error('prompt: token ids expected'), { status: 400 });
      const [gen] = await p.generate([body.prompt as number[]], {
        maxTokens: Number(body.max_tokens ?? 16),
        temperature: Number(body.temperature ?? 1),
        topP: Number(body.top_p ?? 1),
        ...(typeof body.top_k === 'number' && { topK: body.top_k }),
        ...(typeof body.seed === 'number' && { seed: body.seed }),
        ...(Array.isArray(body.stop_token_ids) && { stopTokenIds: body.stop_token_ids as number[] }),
      });
      if (gen === undefined) throw new Error('no generation');
      completions.push({ model: String(body.model ?? model), load: loadOf.get(p) ?? -1, prompt: body.prompt as number[], tokenIds: gen.tokenIds });
      return {
        id: 'cmpl-fake',
        object: 'text_completion',
        model,
        system_fingerprint: p.version,
        choices: [
          {
            index: 0,
            text: gen.text ?? '',
            finish_reason: gen.finishReason,
            token_ids: gen.tokenIds,
            logprobs: { tokens: gen.tokenIds.map((id) => `token_id:${id}`), token_logprobs: gen.logprobs },
          },
        ],
      };
    },
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      try {
        const body = await readJson(req);
        const failure = failures.find((f) => f.path === path);
        if (admin[path] !== undefined) calls.push({ path, body });
        if (failure !== undefined) {
          failure.times = (failure.times ?? 1) - 1;
          if (failure.times <= 0) failures.splice(failures.indexOf(failure), 1);
          if (failure.afterEffect === true) await admin[path]?.(body, { writeHead: () => ({ end: () => undefined }) } as unknown as ServerResponse);
          return send(res, failure.status, failure.body);
        }
        const adminHandler = admin[path];
        if (adminHandler !== undefined) return await adminHandler(body, res);
        const handler = api[path];
        if (handler === undefined) return send(res, 404, vllmError(404, `no route ${path}`));
        send(res, 200, await handler(body));
      } catch (err) {
        const status = (err as { status?: number }).status ?? 500;
        send(res, status, vllmError(status, (err as Error).message));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    loaded,
    loadedFiles,
    completions,
    adapterNames: () => [...adapters.keys()],
    failNext: (f) => failures.push(f),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      policy?.dispose();
      for (const p of adapters.values()) p.dispose();
    },
  };
}
