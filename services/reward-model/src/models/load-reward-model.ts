// Opens a reward-model directory on the engine its configuration names.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTokenizer, loadModelDir, policyFromWeights, TorchEngine, tokenizerFromDir, type Tokenizer, type TorchEngineOptions } from '@rl/policy';
import { AppError, ErrorCode } from '@rl/service-kit';
import { type ReadAt, readAtOf } from './read-position.ts';
import type { LocalRewardModelSpec, RewardModelSpec, VllmRewardModelSpec } from './reward-model-spec.ts';
import { TrainedRewardModel } from './trained-reward-model.ts';
import { criticScoreEngine, type ScoreEngine } from './score-engine.ts';
import { VllmRewardModel } from './vllm-reward-model.ts';

/** Settings every reward model shares (from the service's environment). */
export interface RewardModelSettings {
  maxBatchTokens: number;
  /** The PyTorch engine's device. @default 'auto' */
  torchDevice?: TorchEngineOptions['device'];
  /** Per-attempt limit of a vLLM `/classify` request. @default 60000 */
  vllmTimeoutMs?: number;
  /** onnxruntime's intra-op threads for `onnx:` models. @default availableParallelism() */
  onnxThreads?: number;
}

/** What config.json says about the head: the architecture and pad_token_id (transformers' key for the last non-pad token). */
async function headOf(dir: string): Promise<{ architecture: string; padId: number | null }> {
  const path = join(dir, 'config.json');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new AppError(ErrorCode.InvalidConfig, `${path}: cannot read it as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const { architectures, pad_token_id: pad } = (json ?? {}) as { architectures?: unknown; pad_token_id?: unknown };
  const architecture = Array.isArray(architectures) && typeof architectures[0] === 'string' ? architectures[0] : '';
  if (!architecture.endsWith('ForTokenClassification') && !architecture.endsWith('ForSequenceClassification')) {
    throw new AppError(
      ErrorCode.InvalidConfig,
      `${path}: architectures[0]: ${JSON.stringify(architecture)} is not a reward model (a one-label ...ForTokenClassification or ...ForSequenceClassification)`,
    );
  }
  return { architecture, padId: typeof pad === 'number' && Number.isInteger(pad) ? pad : null };
}

async function jaxEngine(dir: string): Promise<{ engine: ScoreEngine; tokenizer: Tokenizer }> {
  const weights = await loadModelDir(dir);
  // The token budget forms the batches; one batch is one forward pass.
  const policy = await policyFromWeights(weights, { maxBatchSize: 4096 });
  const engine = criticScoreEngine({
    kind: 'jax',
    maxSeqLen: policy.config.maxSeqLen,
    placeholderId: policy.tokenizer.padId,
    values: (pairs) => policy.values(pairs),
    alive: () => true,
    close: async () => policy.dispose(),
  });
  return { engine, tokenizer: policy.tokenizer };
}

async function torchEngine(dir: string, device: TorchEngineOptions['device']): Promise<{ engine: ScoreEngine; tokenizer: Tokenizer }> {
  const tokenizer = createTokenizer(await tokenizerFromDir(dir));
  const child = await TorchEngine.start({ device: device ?? 'auto' });
  try {
    const opened = await child.open(dir);
    if (!opened.valueHead) throw new AppError(ErrorCode.InvalidConfig, `${dir}: the PyTorch engine opened it without a value head`);
    const engine = criticScoreEngine({
      kind: 'torch',
      maxSeqLen: opened.maxSeqLen,
      placeholderId: tokenizer.padId,
      values: (pairs) => child.values(pairs),
      alive: () => child.failed === null,
      close: async () => child.close(),
    });
    return { engine, tokenizer };
  } catch (err) {
    child.close();
    throw err;
  }
}

/** config.json's max_position_embeddings, or null without it (vLLM then judges the length). */
async function maxPositionsOf(dir: string): Promise<number | null> {
  try {
    const { max_position_embeddings: max } = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { max_position_embeddings?: unknown };
    return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : null;
  } catch {
    return null;
  }
}

/** `DIR/model.onnx` on onnxruntime, with the directory's tokenizer; onnxruntime-node is loaded only for such a model. */
async function onnxEngine(
  dir: string,
  head: { readAt: ReadAt; padId: number | null },
  threads: number | undefined,
): Promise<{ engine: ScoreEngine; tokenizer: Tokenizer }> {
  const maxPositions = await maxPositionsOf(dir);
  if (maxPositions === null)
    throw new AppError(ErrorCode.InvalidConfig, `${join(dir, 'config.json')}: max_position_embeddings: missing (an onnx: model's item limit)`);
  const tokenizer = createTokenizer(await tokenizerFromDir(dir));
  const { openOnnxEngine } = await import('./onnx-engine.ts');
  const engine = await openOnnxEngine({ modelPath: join(dir, 'model.onnx'), ...head, fillId: tokenizer.padId, maxPositions, threads });
  return { engine, tokenizer };
}

/** A vLLM-served reward model: only its tokenizer is read here; the server holds the weights. */
async function vllmRewardModel(spec: VllmRewardModelSpec, settings: RewardModelSettings): Promise<VllmRewardModel> {
  let tokenizer: Tokenizer;
  try {
    tokenizer = createTokenizer(await tokenizerFromDir(spec.dir));
  } catch (err) {
    throw new AppError(ErrorCode.InvalidConfig, `REWARD_MODELS: ${spec.name}: ?tokenizer=${spec.dir}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (tokenizer.chatTemplate === '')
    throw new AppError(ErrorCode.InvalidConfig, `REWARD_MODELS: ${spec.name}: ?tokenizer=${spec.dir}: the tokenizer has no chat template`);
  return new VllmRewardModel({
    name: spec.name,
    url: spec.url,
    model: spec.model,
    tokenizer,
    maxTokens: await maxPositionsOf(spec.dir),
    timeoutMs: settings.vllmTimeoutMs ?? 60_000,
  });
}

/** Loads `spec.dir` on `spec.engine`; a directory that is not a one-label reward model is refused naming the key. */
export async function loadRewardModel(spec: LocalRewardModelSpec, settings: RewardModelSettings): Promise<TrainedRewardModel>;
export async function loadRewardModel(spec: RewardModelSpec, settings: RewardModelSettings): Promise<TrainedRewardModel | VllmRewardModel>;
export async function loadRewardModel(spec: RewardModelSpec, settings: RewardModelSettings): Promise<TrainedRewardModel | VllmRewardModel> {
  if (spec.engine === 'vllm') return vllmRewardModel(spec, settings);
  const { architecture, padId } = await headOf(spec.dir);
  const readAt = readAtOf(architecture);
  const { engine, tokenizer } =
    spec.engine === 'torch'
      ? await torchEngine(spec.dir, settings.torchDevice)
      : spec.engine === 'onnx'
        ? await onnxEngine(spec.dir, { readAt, padId }, settings.onnxThreads)
        : await jaxEngine(spec.dir);
  return new TrainedRewardModel({ name: spec.name, tokenizer, readAt, padId, engine, maxBatchTokens: settings.maxBatchTokens });
}
