// The policy worker protocol as an AsyncAPI 3.0 document (request/reply over
// NATS), generated from the same zod schemas the worker validates with, so a
// GPU worker can be written against it. Checked in as openapi/policy-worker.asyncapi.yaml.
import { z } from 'zod';
import * as P from './protocol.ts';

const VERBS: Record<P.PolicyVerb, { request: z.ZodType; reply: z.ZodType; summary: string }> = {
  info: {
    request: P.InfoRequest,
    reply: P.InfoReply,
    summary: 'What the worker holds (weights version, tokenizer, sizes); the trainer polls it until the worker is up.',
  },
  generate: { request: P.GenerateRequest, reply: P.GenerateReply, summary: 'Continue prompts (token ids) with the current actor.' },
  logprobs: {
    request: P.LogprobsRequest,
    reply: P.LogprobsReply,
    summary: 'Teacher-forced log-probs (and entropies) of responses under the actor or the frozen reference.',
  },
  update: {
    request: P.UpdateRequest,
    reply: P.UpdateReply,
    summary: 'PPO epochs over mini-batches of one step’s experience; one optimizer step per mini-batch. Metrics use verl’s actor/* names.',
  },
  sft_step: {
    request: P.SftStepRequest,
    reply: P.SftStepReply,
    summary:
      'One supervised fine-tuning step: token-mean NLL of the learned response tokens per micro-batch, gradients accumulated over the micro-batches (each / n), one AdamW step at the given learning rate.',
  },
  values: {
    request: P.ValuesRequest,
    reply: P.ValuesReply,
    summary: 'The critic’s value of the state before each response token (GAE jobs; verl compute_values).',
  },
  update_critic: {
    request: P.UpdateCriticRequest,
    reply: P.UpdateCriticReply,
    summary: 'verl update_critic: PPO epochs over mini-batches of the clipped value loss against the GAE returns. Metrics use verl’s critic/* names.',
  },
  export: {
    request: P.ExportRequest,
    reply: P.ExportReply,
    summary: 'Publish the current weights to the JetStream object store and/or write a checkpoint (actor, reference, optimizer).',
  },
};

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

/** The AsyncAPI document. */
export function policyAsyncApiDocument(): object {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const [verb, v] of Object.entries(VERBS)) {
    channels[verb] = {
      address: `policy.{job}.${verb}`,
      parameters: { job: { description: 'Training job id' } },
      messages: { [`${verb}Request`]: { $ref: `#/components/messages/${verb}Request` }, [`${verb}Reply`]: { $ref: `#/components/messages/${verb}Reply` } },
    };
    messages[`${verb}Request`] = { contentType: 'application/json', payload: schema(v.request) };
    messages[`${verb}Reply`] = { contentType: 'application/json', payload: schema(v.reply) };
    operations[verb] = {
      action: 'receive',
      summary: v.summary,
      channel: { $ref: `#/channels/${verb}` },
      messages: [{ $ref: `#/channels/${verb}/messages/${verb}Request` }],
      reply: { messages: [{ $ref: `#/channels/${verb}/messages/${verb}Reply` }] },
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Policy worker protocol',
      version: '0.1.0',
      description:
        'NATS request/reply subjects a policy worker serves for one training job. The CPU worker in services/trainer implements them with the embedded transformer; a GPU worker implements the same subjects and bodies. Errors come back as `{error: {code, message}}` with the NATS services error headers; bodies above the connection’s max_payload are chunked (shared/service-kit/src/nats/chunking.ts).',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages },
  };
}
