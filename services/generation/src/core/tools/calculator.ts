import { pyStr } from '@rl/service-kit/core';
import { evaluateArithmetic, formatNumber } from './arith.ts';
import type { Tool, ToolSchema } from './tool.ts';

/** Default schema of the `calculator` tool. */
export const CALCULATOR_SCHEMA: ToolSchema = {
  type: 'function',
  function: {
    name: 'calculator',
    description:
      'Evaluate an arithmetic expression (+ - * / // % ^, parentheses, sqrt, abs, round, floor, ceil, min, max, log, exp, pi, e) and return the number.',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string', description: 'The expression, e.g. "(16 - 3 - 4) * 2"' } },
      required: ['expression'],
    },
  },
};

/** A safe arithmetic calculator: parsed, never evaluated as code. A bad expression is an error message to the model. */
export function createCalculatorTool(o: { schema: ToolSchema; timeoutMs: number }): Tool {
  return {
    name: o.schema.function.name,
    schema: o.schema,
    timeoutMs: o.timeoutMs,
    async execute(args) {
      return { text: formatNumber(evaluateArithmetic(pyStr(args.expression ?? ''))), reward: null };
    },
  };
}
