import { AppError, ErrorCode, getOwn, validationError } from '@rl/service-kit/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { EnvPort } from '../env-port.ts';
import { createGsm8kInteraction } from './gsm8k.ts';
import type { Interaction } from './interaction.ts';

/** An interaction config in verl's format (`multi_turn.interaction_config_path`). */
export const InteractionConfigFile = z.object({
  interaction: z
    .array(
      z.object({
        /** Registry name; defaults to the class name without `Interaction`, lower-cased (verl's rule). */
        name: z.string().min(1).optional(),
        class_name: z.string().min(1),
        config: z.looseObject({ timeout_ms: z.number().int().positive().optional() }).default({}),
      }),
    )
    .default([]),
});
export type InteractionConfigFile = z.infer<typeof InteractionConfigFile>;

interface BuildDeps {
  port: EnvPort;
  defaultTimeoutMs: number;
}

const INTERACTION_CLASSES: Readonly<Record<string, (name: string, timeoutMs: number, deps: BuildDeps) => Interaction>> = {
  Gsm8kInteraction: (name, timeoutMs, { port }) => createGsm8kInteraction({ name, port, timeoutMs }),
};

/** Parses a YAML interaction config; errors name the file and the failing field. */
export function parseInteractionConfig(yamlText: string, where: string): InteractionConfigFile {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText);
  } catch (err) {
    throw new AppError(ErrorCode.InvalidConfig, `${where}: not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = InteractionConfigFile.safeParse(raw ?? {});
  if (!parsed.success) throw validationError(parsed.error, where);
  return parsed.data;
}

/** verl's `initialize_interactions_from_config`: name -> interaction, duplicate names refused. */
export function buildInteractions(file: InteractionConfigFile, deps: BuildDeps, where = 'interaction config'): Map<string, Interaction> {
  const out = new Map<string, Interaction>();
  file.interaction.forEach((entry, i) => {
    const cls = entry.class_name.split('.').at(-1) ?? '';
    const factory = getOwn(INTERACTION_CLASSES, cls);
    if (factory === undefined) {
      throw new AppError(
        ErrorCode.InvalidConfig,
        `${where}: interaction[${i}].class_name: unknown interaction class '${entry.class_name}' (known: ${Object.keys(INTERACTION_CLASSES).join(', ')})`,
      );
    }
    const name = entry.name ?? (cls.endsWith('Interaction') ? cls.slice(0, -'Interaction'.length) : cls).toLowerCase();
    if (out.has(name)) throw new AppError(ErrorCode.InvalidConfig, `${where}: interaction[${i}]: duplicate interaction name '${name}'`);
    out.set(name, factory(name, entry.config.timeout_ms ?? deps.defaultTimeoutMs, deps));
  });
  return out;
}
