/** An OpenAI function-tool schema, as verl's `tool_schema` (`OpenAIFunctionToolSchema`). */
export interface ToolSchema {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: { type: string; properties: Record<string, unknown>; required: string[] };
    strict?: boolean;
  };
}

/** What a tool gets for one call besides its arguments. */
export interface ToolCallContext {
  /** `tools_kwargs[<tool>].create_kwargs` of the sample (verl's `tool.create(create_kwargs=...)`). */
  createKwargs: Record<string, unknown>;
  /** Aborted at the tool's deadline or when the rollout is cancelled. */
  signal: AbortSignal;
}

/** A tool's answer: the text appended for the model and its step reward (verl's `tool_reward`). */
export interface ToolOutput {
  text: string;
  /** `null` where verl's tool returns no reward (the sandbox tool). */
  reward: number | null;
  /** The call failed (transport, bad arguments); the text says why. */
  failed?: boolean;
}

/** A callable tool, built from one entry of the tool config. */
export interface Tool {
  readonly name: string;
  readonly schema: ToolSchema;
  /** Deadline of one call; past it the model gets an error message. */
  readonly timeoutMs: number;
  execute(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutput>;
}
