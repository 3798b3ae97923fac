import type * as z from "zod";
import type { SubagentReport } from "../engine/events.js";
import type { MediaBlock } from "../engine/messages.js";
import type { MediaInput } from "../engine/provider.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import type { BackgroundShells } from "./background-shells.js";

/**
 * Which family of tools a tool belongs to, for permission rules and scheduling: `Read(...)` rules
 * cover `read` tools, `Edit(...)`/`Write(...)` rules `edit` tools, `Bash(...)`/`Shell(...)` rules the
 * command of an `execute` tool. `other` is everything else (MCP tools, custom tools).
 */
export type ToolKind = "read" | "edit" | "execute" | "other";

/** One file a call reads or writes, as given in the input (relative to the working directory or absolute). */
export type ToolPathAccess = { path: string; access: "read" | "write" };

/**
 * What a tool does outside the conversation, declared next to its definition. The permission
 * policy, the engine's scheduling and the front ends read it; nothing else knows tool names.
 *
 * A declaration describes everything a call can do: the files `paths` names, the command line
 * `command` returns, the network when `network` is set. A tool that changes something it cannot
 * describe this way (a database, a remote service) declares `readOnly: false` and no `paths`: it is
 * asked about, like a tool without a declaration.
 */
export type ToolEffects = {
  kind: ToolKind;
  /**
   * Changes nothing outside the conversation (MCP's `readOnlyHint`). Read-only calls are allowed in
   * plan mode, run in parallel with each other, and need no approval when the paths they declare are
   * inside the workspace (or they declare none). Every `read` tool is read-only.
   */
  readOnly: boolean;
  /**
   * Reaches the network. Such a call is never allowed by the mode alone: it needs an allow rule
   * naming the tool, approval, or `bypassPermissions`. For an `execute` tool the check of its
   * command decides instead (no command on the read-only list reaches the network).
   */
  network: boolean;
  /**
   * The files a call touches, derived from its input; `uncheckable` says why they cannot be known
   * (the call is then asked about). Called with any input: invalid input is `uncheckable`. `cwd` is
   * the session's working directory, which relative paths in the input are resolved against.
   */
  paths?(input: Record<string, unknown>, cwd: string): ToolPathAccess[] | { uncheckable: string };
  /** The command line an `execute` tool runs (checked against the shell rules and the read-only list). */
  command?(input: Record<string, unknown>): string | undefined;
  /**
   * The call is a question to the user, asked whatever the mode and the allow rules (a deny rule
   * still refuses it). `answer`: the user's answer becomes its input (AskUserQuestion); a session
   * nobody answers does not offer the tool. `exit-plan`: the user approves leaving plan mode
   * (ExitPlanMode); approving switches the session out of plan mode, and where nobody answers the
   * call runs unasked (`ToolContext.unattended`).
   */
  asksUser?: "answer" | "exit-plan";
};

/**
 * Payload shapes the front ends know how to show (stream-json's `<payload>ToolCall` objects: their
 * `args` come from the input, their `result` from the outcome's `data`). A tool declaring one takes
 * the same input and returns the same `data` as the built-in tool that defines the shape; a tool
 * without one is shown generically (`function` with the input as JSON).
 */
export type ToolPayload =
  | "read"
  | "write"
  | "edit"
  | "shell"
  | "grep"
  | "glob"
  | "ls"
  | "updateTodos"
  | "task"
  | "askQuestion"
  | "createPlan";

/**
 * How a call is shown, in every door (ACP's tool calls, permission questions, the interactive
 * mode): what a person reads to know what it does. Declared by the tool (`display`); what it leaves
 * out is derived from its effects (src/tools/display.ts), so MCP and custom tools are shown too.
 */
export type ToolDisplay = {
  /** One line: `Read src/a.ts`, `` `npm test` ``, `grep "TODO" in src`. */
  title: string;
  kind: ToolDisplayKind;
  /** The files the call touches, absolute, with the first line when it reads from one. */
  locations: { path: string; line?: number }[];
  /** The change an edit makes, known before it runs (`oldText` null: a new file, or not known). */
  diff?: { path: string; oldText: string | null; newText: string };
};

/** What kind of action a call is, as editors group them (ACP's tool kinds, without move/delete). */
export type ToolDisplayKind =
  | "read"
  | "edit"
  | "execute"
  | "search"
  | "think"
  | "fetch"
  | "switch_mode"
  | "other";

/**
 * A tool's own display of a call (validated input); `live`: the call has not run yet, so the file
 * a write replaces can still be read for its diff.
 */
export type ToolDisplaySpec<I> = (input: I, cwd: string, options: { live: boolean }) => Partial<ToolDisplay>;

export type ToolContext = {
  /** Absolute working directory of the session; relative paths resolve against it. */
  cwd: string;
  /**
   * Nobody answers this run's questions (print mode, an SDK query without `canUseTool`): a tool
   * that would ask the user decides alone.
   */
  unattended?: boolean;
  signal: AbortSignal;
  toolUseId: string;
  /** Environment for child processes (already stripped of secrets by the caller). */
  env: NodeJS.ProcessEnv;
  /** The OS sandbox shell commands run under (resolved per run); absent: none, as `disabled`. */
  sandbox?: SandboxPolicy;
  /** The session's background shells (Bash `run_in_background`, BashOutput, TaskStop); absent: none offered. */
  backgroundShells?: BackgroundShells;
  /** The model the result goes to (named in messages about what it cannot see). */
  model?: string;
  /** Which media that model takes; absent: unknown (attach, the server decides). */
  mediaInput?: MediaInput;
  /**
   * Forwards an event of the subagent this call runs into the run's stream (the Agent tool);
   * resolves once the run's consumer has taken it, so a subagent never runs ahead of its output.
   */
  report?: (report: SubagentReport) => Promise<void>;
};

/**
 * What a tool returns. `content` is what the model reads; `data` is a structured record of what
 * happened (line counts, exit code, absolute path...) for the front ends' tool payloads.
 */
export type ToolOutput = {
  content: string;
  data?: Record<string, unknown>;
  /** Images or documents the model sees beside `content` (Read of a PNG or PDF). */
  media?: MediaBlock[];
  isError?: boolean;
  /**
   * The run ends successfully once this call's batch is done, without another model call
   * (e.g. structured output was accepted).
   */
  terminal?: boolean;
  /** With `terminal`: the run's result text (ExitPlanMode's plan in print mode). */
  result?: string;
};

/** The result the engine records for every tool_use, also when the tool failed or never ran. */
export type ToolOutcome = ToolOutput & {
  isError: boolean;
  durationMs: number;
  /** Why the tool did not run or failed: "invalid_input" | "unknown_tool" | "aborted" | "denied" | "failed". */
  errorKind?: "invalid_input" | "unknown_tool" | "aborted" | "denied" | "failed";
};

/** A validated input, or the error the model reads (naming each offending field). */
export type ToolValidation = { ok: true; input: Record<string, unknown> } | { ok: false; message: string };

/**
 * A tool ready for the engine. The engine validates every input before anything else sees it
 * (hooks, permission rules, the permission callback) and runs only what `validate` accepted.
 */
export type Tool = {
  name: string;
  /** Other names a call may use (a legacy name: `Task` for `Agent`); the model is offered `name`. */
  aliases?: readonly string[];
  description: string;
  /** JSON Schema of the input, sent to the model. */
  jsonSchema: Record<string, unknown>;
  /** What the tool touches; without it the tool is asked about and runs alone. */
  effects?: ToolEffects;
  /** How front ends show its calls; without it, generically. */
  payload?: ToolPayload;
  /** How a call is shown (title, kind, files, diff); without it, derived from `effects`. */
  display?: ToolDisplaySpec<Record<string, unknown>>;
  /** The permission modes the tool is offered in (default: every mode); checked at each turn's start. */
  offeredInModes?: readonly string[];
  validate(rawInput: unknown): ToolValidation;
  /** Runs an input `validate` accepted (its `input`); never throws. */
  execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
};

/** What the permission policy and the front ends need to know about a tool. */
export type ToolDeclaration = Pick<
  Tool,
  "name" | "effects" | "payload" | "aliases" | "display" | "offeredInModes"
>;

export type ToolSpecInput<S extends z.ZodType> = z.infer<S>;
