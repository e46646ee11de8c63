// The embedded policy's contract lives in shared (the trainer trains the same model).
export type { ChatMessage, ChatTemplateOptions, Generation, PolicyModel, SamplingParams, Tokenizer, ToolSchema } from '@rl/policy';
