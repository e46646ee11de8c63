import { z } from 'zod';

// Reply shapes of OpenAI-compatible servers, as loose as the fields we read allow.

/** vLLM `POST /tokenize` reply. */
export const TokenizeReply = z.looseObject({ tokens: z.array(z.number().int()), max_model_len: z.number().int().optional() });
/** vLLM `POST /detokenize` reply. */
export const DetokenizeReply = z.looseObject({ prompt: z.string() });

/** `POST /v1/completions` reply, with vLLM's `token_ids` extension. */
export const CompletionReply = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        text: z.string(),
        finish_reason: z.string().nullable(),
        token_ids: z.array(z.number().int()).nullish(),
        logprobs: z
          .looseObject({
            tokens: z.array(z.string()).nullish(),
            token_logprobs: z.array(z.number().nullable()).nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
});
export type CompletionReply = z.infer<typeof CompletionReply>;

/** `POST /v1/chat/completions` reply. */
export const ChatReply = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.looseObject({
                id: z
                  .string()
                  .nullish()
                  .transform((v) => v ?? undefined),
                function: z.looseObject({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullable(),
      }),
    )
    .min(1),
  usage: z.looseObject({ completion_tokens: z.number().int() }).nullish(),
});
