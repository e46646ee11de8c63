// The embedded policy's contract lives in shared (the trainer trains the same model).
export type { ChatMessage, Generation, PolicyModel, SamplingParams, Tokenizer } from '@rl/policy';
