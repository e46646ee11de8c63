import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fakePort, manualDeadlines } from '../agent/testing/agent.ts';
import { buildInteractions, parseInteractionConfig } from '../interactions/interaction-config.ts';
import { buildTools, parseToolConfig } from './tool-config.ts';

const deps = { port: fakePort(), defaultTimeoutMs: 1000 };
const signal = () => manualDeadlines().deadline(1);

describe('tool config (verl format)', () => {
  it('builds verl’s gsm8k tool config as is', () => {
    const yaml = `tools:
  - class_name: "verl.tools.gsm8k_tool.Gsm8kTool"
    config:
      type: native
    tool_schema:
      type: "function"
      function:
        name: "calc_gsm8k_reward"
        description: "A tool for calculating the reward of gsm8k."
        parameters:
          type: "object"
          properties:
            answer:
              type: "string"
              description: "The model's answer"
          required: ["answer"]
`;
    const tools = buildTools(parseToolConfig(yaml, 'gsm8k.yaml'), deps);
    expect([...tools.keys()]).toEqual(['calc_gsm8k_reward']);
    expect(tools.get('calc_gsm8k_reward')?.timeoutMs).toBe(1000);
  });

  it('ships a default config with the three tools and their timeouts', () => {
    const text = readFileSync(new URL('../../../config/tool_config.yaml', import.meta.url), 'utf8');
    const tools = buildTools(parseToolConfig(text, 'default'), deps);
    expect([...tools.keys()]).toEqual(['calc_gsm8k_reward', 'code_interpreter', 'calculator']);
    expect([...tools.values()].every((t) => t.timeoutMs > 0)).toBe(true);
  });

  it('runs the sandbox tool with SandboxFusion’s request shape and verl’s defaults', async () => {
    const port = fakePort();
    const tools = buildTools(parseToolConfig('tools: [{class_name: SandboxFusionTool, config: {memory_limit_mb: 512}}]', 'x'), { port, defaultTimeoutMs: 5 });
    const out = await tools.get('code_interpreter')?.execute({ code: 'print(1)', timeout: 'soon' }, { createKwargs: {}, signal: signal() });
    expect(out).toEqual({ text: 'out\n', reward: null });
    expect(port.ran).toEqual([
      { compile_timeout: 30, run_timeout: 30, code: 'print(1)', stdin: null, memory_limit_MB: 512, language: 'python', files: {}, fetch_files: [] },
    ]);
  });

  it('answers `no stdout here` for runs that did not finish', async () => {
    const port = fakePort({
      runCode: async () => ({
        status: 'Failed',
        message: '',
        compile_result: null,
        run_result: { status: 'TimeLimitExceeded', stdout: '', stderr: '', return_code: null },
      }),
    });
    const tools = buildTools(parseToolConfig('tools: [{class_name: SandboxFusionTool}]', 'x'), { port, defaultTimeoutMs: 5 });
    expect(await tools.get('code_interpreter')?.execute({ code: 'while True: pass' }, { createKwargs: {}, signal: signal() })).toEqual({
      text: 'no stdout here',
      reward: null,
    });
  });

  it('names the failing field of a bad config', () => {
    expect(() => buildTools(parseToolConfig('tools: [{class_name: a.b.WebTool}]', 'x.yaml'), deps, 'x.yaml')).toThrow(
      "x.yaml: tools[0].class_name: unknown tool class 'a.b.WebTool'",
    );
    for (const cls of ['constructor', 'x.__proto__', 'toString']) {
      expect(() => buildTools(parseToolConfig(`tools: [{class_name: ${cls}}]`, 'x.yaml'), deps, 'x.yaml')).toThrow(`unknown tool class '${cls}'`);
    }
    expect(() => parseToolConfig('tools: [{class_name: Gsm8kTool, config: {type: mcp}}]', 'x.yaml')).toThrow(/x\.yaml: tools\[0\]\.config\.type/);
    expect(() => parseToolConfig('tools: [{class_name: Gsm8kTool, tool_schema: {type: function, function: {name: "bad name"}}}]', 'x.yaml')).toThrow(
      /tools\[0\]\.tool_schema\.function\.name/,
    );
    expect(() => buildTools(parseToolConfig('tools: [{class_name: CalculatorTool}, {class_name: CalculatorTool}]', 'x.yaml'), deps)).toThrow(
      /duplicate tool name 'calculator'/,
    );
  });
});

describe('interaction config (verl format)', () => {
  it('registers by name, defaulting to the class name without `Interaction`', () => {
    const named = buildInteractions(
      parseInteractionConfig('interaction: [{name: gsm8k, class_name: verl.interactions.gsm8k_interaction.Gsm8kInteraction, config: {}}]', 'x'),
      deps,
    );
    expect([...named.keys()]).toEqual(['gsm8k']);
    const unnamed = buildInteractions(parseInteractionConfig('interaction: [{class_name: Gsm8kInteraction}]', 'x'), deps);
    expect([...unnamed.keys()]).toEqual(['gsm8k']);
  });

  it('refuses duplicates and unknown classes', () => {
    expect(() =>
      buildInteractions(parseInteractionConfig('interaction: [{class_name: Gsm8kInteraction}, {name: gsm8k, class_name: Gsm8kInteraction}]', 'x'), deps),
    ).toThrow(/duplicate interaction name 'gsm8k'/);
    expect(() => buildInteractions(parseInteractionConfig('interaction: [{class_name: WeatherInteraction}]', 'x'), deps)).toThrow(
      /interaction\[0\]\.class_name: unknown interaction class/,
    );
    expect(() => buildInteractions(parseInteractionConfig('interaction: [{class_name: constructor}]', 'x'), deps)).toThrow(
      "unknown interaction class 'constructor'",
    );
  });
});
