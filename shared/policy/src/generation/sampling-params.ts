import { z } from 'zod';
import { invalidParamsError } from '@rl/service-kit/core';
import type { SamplingParams } from '../types.ts';

const Schema = z
  .object({
    temperature: z.number().finite().min(0).default(1),
    topK: z.number().int().min(-1).default(0),
    topP: z.number().gt(0).max(1).default(1),
    maxTokens: z.number().int().min(0),
    stopTokenIds: z.array(z.number().int().min(0)).optional(),
    stop: z.array(z.string().min(1).max(1000)).max(64).default([]),
    seed: z.number().int().optional(),
    rowSeeds: z.array(z.number().int()).optional(),
  })
  .strip();

/** Sampling parameters with defaults applied. */
export interface ResolvedSampling {
  temperature: number;
  topK: number;
  topP: number;
  maxTokens: number;
  stopTokenIds: ReadonlySet<number>;
  stop: readonly string[];
  seed: number;
  rowSeeds?: readonly number[];
}

/** Validates and completes `params`; `nextSeed` supplies the seed of an unseeded request. A bad value is a 400 naming `params.<field>`. */
export function resolveSampling(params: SamplingParams, eosIds: readonly number[], vocabSize: number, nextSeed: () => number): ResolvedSampling {
  const parsed = Schema.safeParse(params);
  if (!parsed.success) throw invalidParamsError(parsed.error);
  const p = parsed.data;
  const stopIds = p.stopTokenIds ?? [...eosIds];
  const bad = stopIds.findIndex((id) => id >= vocabSize);
  if (bad >= 0) {
    throw invalidParamsError(
      new z.ZodError([
        { code: 'custom', path: ['stopTokenIds', bad], message: `token id must be below the vocabulary size ${vocabSize}`, input: stopIds[bad] },
      ]),
    );
  }
  return {
    temperature: p.temperature,
    topK: p.topK,
    topP: p.topP,
    maxTokens: p.maxTokens,
    stopTokenIds: new Set(stopIds),
    stop: p.stop,
    seed: p.seed ?? nextSeed(),
    ...(p.rowSeeds !== undefined && { rowSeeds: p.rowSeeds }),
  };
}
