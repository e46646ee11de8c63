// Public surface of the embedded policy (`@rl/policy`).
export type { ChatMessage, ChatTemplateOptions, Generation, PolicyModel, SamplingParams, Tokenizer, ToolCall, ToolSchema } from './types.ts';
export { ensureTensorBackend, lax, nn, np, tree, type Tensor } from './model/backend.ts';
export { Architecture, ModelConfig, parseModelConfig, type ModelConfigInput } from './model/model-config.ts';
export { ARITHMETIC_CHARACTERS, CHAR_SPECIALS, CharTokenizer, type CharTokenizerConfig } from './tokenizers/char-tokenizer.ts';
export { BYTE_SPECIALS, ByteTokenizer, type ByteTokenizerConfig } from './tokenizers/byte-tokenizer.ts';
export { TokenizerConfig, arithmeticTokenizer, chatMlBpeTokenizer, createTokenizer, type PolicyTokenizer } from './tokenizers/tokenizer.ts';
export { generationIds, tokenizerFiles, tokenizerFromDir } from './tokenizers/tokenizer-dir.ts';
export { EmbeddedPolicy, createRandomPolicy, policyFromWeights, type EmbeddedPolicyOptions, type PolicyWeights } from './embedded-policy.ts';
export { rowSeed } from './policy-core.ts';
export type { PackWidths, PairScores, TokenPair } from './generation/score.ts';
export { candidates, logSoftmaxAt, sampleToken, type SampledToken, type SamplerSettings } from './generation/sampling.ts';
export { PolicyTrainer } from './training/policy-trainer.ts';
export type { AccumulateResult, EngineKind, PolicySnapshot, StepResult, TrainingEngine } from './training/training-engine.ts';
export { withValueHead } from './model/value-head.ts';
export { trainBpe, type TrainBpeOptions } from './tokenizers/bpe/train-bpe.ts';
export { PreTokenizerStyle, type TokenizerJson } from './tokenizers/bpe/tokenizer-json.ts';
export { HfTokenizer, HfTokenizerConfig } from './tokenizers/hf-tokenizer.ts';
export { widthBucket } from './training/batch-layout.ts';
export type { TrainBatch } from './training/train-batch.ts';
export type { LossInputs, PolicyLoss } from './training/loss-inputs.ts';
export { lossOnLeaves, type LeafLoss, type LeafValues } from './training/loss-on-leaves.ts';
export { OptimizerConfig, parseOptimizerConfig, type OptimizerConfigInput } from './training/optimizer.ts';
export {
  decodeSafetensors,
  encodeSafetensors,
  readSafetensors,
  writeSafetensors,
  type EncodeOptions,
  type Safetensors,
  type StoredDtype,
} from './weights/safetensors.ts';
export { parseHfConfig, toHfConfig, type GenerationIds } from './hf/hf-config.ts';
export { isModelDir, loadModelDir, saveModelDir, type LoadModelDirOptions, type ModelDirWeights, type SaveModelDirOptions } from './hf/model-dir.ts';
export { WEIGHTS_FORMAT, WEIGHTS_FORMAT_VERSION, decodeWeights, encodeWeights, loadPolicy, loadWeights, saveWeights } from './weights/weights.ts';
export {
  fetchWeights,
  openWeightsStore,
  publishWeights,
  watchWeights,
  type WatchWeightsOptions,
  type WeightsSource,
  type WeightsWatcher,
} from './weights/weights-store.ts';
export { decodeAdapterObject, publishAdapter, type AdapterObject } from './weights/adapter-object.ts';
export { ModelHandle, type Lease } from './weights/model-handle.ts';
export type { HostParams, HostTensor } from './model/params.ts';
export { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, adapterConfigJson, loraScaling, parseAdapterConfig, type LoraSettings } from './lora/adapter-config.ts';
export { readAdapterDir, writeAdapterDir, type AdapterDir } from './lora/adapter-dir.ts';
export { loraTargets, mergeAdapter, type LoraAdapter } from './lora/lora-adapter.ts';
export { LoraTrainer, type LoraTrainerOptions } from './lora/lora-trainer.ts';
export { TorchTrainer, type TorchTrainerOptions } from './torch/torch-trainer.ts';
export { TorchEngine, type TorchEngineOptions } from './torch/torch-engine.ts';
