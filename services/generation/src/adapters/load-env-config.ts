import { readFile } from 'node:fs/promises';
import { AppError, ErrorCode } from '@rl/service-kit';
import type { GenerationConfig } from '../config.ts';
import type { EnvPort } from '../core/env-port.ts';
import { buildInteractions, parseInteractionConfig } from '../core/interactions/interaction-config.ts';
import type { Interaction } from '../core/interactions/interaction.ts';
import { buildTools, parseToolConfig } from '../core/tools/tool-config.ts';
import type { Tool } from '../core/tools/tool.ts';

async function readConfigFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new AppError(ErrorCode.InvalidConfig, `${what} ${path}: cannot read`, { cause: err });
  }
}

/** Reads the tool and interaction configs (verl's YAML formats) and builds them over `port`. */
export async function loadEnvironment(config: GenerationConfig, port: EnvPort): Promise<{ tools: Map<string, Tool>; interactions: Map<string, Interaction> }> {
  const deps = { port, defaultTimeoutMs: config.TOOL_TIMEOUT_MS };
  const toolPath = config.TOOL_CONFIG_PATH;
  const interactionPath = config.INTERACTION_CONFIG_PATH;
  const tools = buildTools(parseToolConfig(await readConfigFile(toolPath, 'TOOL_CONFIG_PATH'), toolPath), deps, toolPath);
  const interactions = buildInteractions(
    parseInteractionConfig(await readConfigFile(interactionPath, 'INTERACTION_CONFIG_PATH'), interactionPath),
    deps,
    interactionPath,
  );
  return { tools, interactions };
}
