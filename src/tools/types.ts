import type * as z from "zod";
import type { SandboxPolicy } from "../sandbox/policy.js";

/**
 * How a tool touches the world; used to schedule calls (reads in parallel, the rest one at a time)
 * and, later, by permission modes (`plan` allows only `read`).
 */
export type ToolKind = "read" | "edit" | "execute" | "other";

export type ToolContext = {
  /** Absolute working directory of the session; relative paths resolve against it. */
  cwd: string;
  signal: AbortSignal;
  toolUseId: string;
  /** Environment for child processes (already stripped of secrets by the caller). */
  env?: NodeJS.ProcessEnv;
  /** The OS sandbox shell commands run under (resolved per run); absent: none, as `disabled`. */
  sandbox?: SandboxPolicy;
};

/**
 * What a tool returns. `content` is what the model reads; `data` is a structured record of what
 * happened (line counts, exit code, absolute path...) for the front ends' tool payloads.
 */
export type ToolOutput = {
  content: string;
  data?: Record<string, unknown>;
  isError?: boolean;
  /**
   * The run ends successfully once this call's batch is done, without another model call
   * (e.g. structured output was accepted).
   */
  terminal?: boolean;
};

/** The result the engine records for every tool_use, also when the tool failed or never ran. */
export type ToolOutcome = ToolOutput & {
  isError: boolean;
  durationMs: number;
  /** Why the tool did not run or failed: "invalid_input" | "unknown_tool" | "aborted" | "denied" | "failed". */
  errorKind?: "invalid_input" | "unknown_tool" | "aborted" | "denied" | "failed";
};

/** A tool ready for the engine: input is validated inside `execute`, which never throws. */
export type Tool = {
  name: string;
  description: string;
  kind: ToolKind;
  /** JSON Schema of the input, sent to the model. */
  jsonSchema: Record<string, unknown>;
  execute(rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome>;
};

export type ToolSpecInput<S extends z.ZodType> = z.infer<S>;
