// Where a job's model comes from: initial weights (a .safetensors file, a
// checkpoint step directory, or a job directory whose latest checkpoint is
// used: what `actor_rollout_ref.model.path` / SFT `model.partial_pretrain`
// name) and the tokenizer (`char`, `byte`, a tokenizer.json path, or the one
// the weights carry).
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit';
import { arithmeticTokenizer, createTokenizer, loadWeights, type PolicyTokenizer, type TokenizerConfig } from '@rl/policy';
import { latestStep, policyDir } from './checkpoint-store.ts';

const ACTOR_FILE = 'actor.safetensors';

const isFile = (p: string) =>
  stat(p).then(
    (s) => s.isFile(),
    () => false,
  );

/** The actor weights file a model path names (file, policy dir, step dir or job dir with a latest checkpoint). */
export async function resolveWeightsFile(path: string, field: string): Promise<string> {
  if (await isFile(path)) return path;
  const tried = [join(path, ACTOR_FILE), join(path, 'policy', ACTOR_FILE)];
  const step = await latestStep(path).catch(() => null);
  if (step !== null) tried.push(join(policyDir(path, step), ACTOR_FILE));
  for (const candidate of tried) if (await isFile(candidate)) return candidate;
  throw new AppError(ErrorCode.BadRequest, `${field}: no weights at ${path} (looked for the file itself, ${tried.join(', ')})`, { details: { field } });
}

/** The tokenizer config of a `tokenizer` key: "char" (the digit task), "byte", or a tokenizer.json file. */
export async function tokenizerFromKey(key: string, baseDir: string, field: string): Promise<TokenizerConfig> {
  if (key === 'char') return arithmeticTokenizer().config;
  if (key === 'byte') return { kind: 'byte' };
  const path = resolve(baseDir, key);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AppError(ErrorCode.BadRequest, `${field}: cannot read tokenizer.json ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: err,
      details: { field },
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the file's first characters.
    throw new AppError(ErrorCode.BadRequest, `${field}: ${path} is not a JSON file`, { details: { field } });
  }
  return createTokenizer({ kind: 'hf', tokenizer: json }).config;
}

/** A job's resolved model: the initial weights file (null = random init) and the tokenizer the model uses. */
export interface ModelSource {
  weightsFile: string | null;
  tokenizer: PolicyTokenizer;
}

/** Resolves the model keys of a job (paths relative to `baseDir`). */
export async function resolveModelSource(opts: {
  path: string | null;
  tokenizer: string | null;
  baseDir: string;
  pathField: string;
  tokenizerField: string;
}): Promise<ModelSource> {
  if (opts.path !== null) {
    const weightsFile = await resolveWeightsFile(resolve(opts.baseDir, opts.path), opts.pathField);
    return { weightsFile, tokenizer: createTokenizer((await loadWeights(weightsFile)).tokenizer) };
  }
  return { weightsFile: null, tokenizer: createTokenizer(await tokenizerFromKey(opts.tokenizer ?? 'char', opts.baseDir, opts.tokenizerField)) };
}
