// Public surface of the embedded policy (`@rl/shared/policy`).
export type { ChatMessage, Generation, PolicyModel, SamplingParams, Tokenizer } from './types.ts';
export { ensureTensorBackend, lax, nn, np, tree, type Tensor } from './backend.ts';
export { ModelConfig, parseModelConfig, type ModelConfigInput } from './model-config.ts';
export { ARITHMETIC_CHARACTERS, CHAR_SPECIALS, CharTokenizer, type CharTokenizerConfig } from './char-tokenizer.ts';
export { BYTE_SPECIALS, ByteTokenizer, type ByteTokenizerConfig } from './byte-tokenizer.ts';
export { TokenizerConfig, arithmeticTokenizer, createTokenizer, type PolicyTokenizer } from './tokenizer.ts';
export { EmbeddedPolicy, createRandomPolicy, policyFromWeights, type EmbeddedPolicyOptions, type PolicyWeights } from './embedded-policy.ts';
export type { PairScores, TokenPair } from './score.ts';
export { candidates, logSoftmaxAt, sampleToken, type SampledToken, type SamplerSettings } from './sampling.ts';
export { PolicyTrainer, type AccumulateResult, type StepResult } from './policy-trainer.ts';
export type { TrainBatch } from './train-batch.ts';
export type { LossInputs, PolicyLoss } from './loss-inputs.ts';
export { OptimizerConfig, parseOptimizerConfig, type OptimizerConfigInput } from './optimizer.ts';
export { decodeSafetensors, encodeSafetensors, type Safetensors } from './safetensors.ts';
export { WEIGHTS_FORMAT, WEIGHTS_FORMAT_VERSION, decodeWeights, encodeWeights, loadPolicy, loadWeights, saveWeights } from './weights.ts';
export { fetchWeights, openWeightsStore, publishWeights, watchWeights, type WatchWeightsOptions, type WeightsSource, type WeightsWatcher } from './weights-store.ts';
export { ModelHandle, type Lease } from './model-handle.ts';
export type { HostParams, HostTensor } from './params.ts';
