import os from "node:os";
import path from "node:path";
import type { CanUseTool, PermissionDecision } from "../engine/tool-runner.js";
import type { ToolDeclaration } from "../tools/types.js";
import { resolveCairnHome } from "./home.js";
import { resolveRoot } from "./paths.js";
import { compileRules, evaluateToolCall, type PolicyContext } from "./policy.js";
import type { PermissionMode, PermissionRule, PermissionVerdict } from "./types.js";

/**
 * Asked when a call is neither allowed nor denied by rules and mode. Same shape as the agent-SDK
 * `canUseTool` plus the reason, so an SDK callback can be passed through. `null`/`undefined` or a
 * thrown error count as deny.
 */
export type AskCallback = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    toolUseID: string;
    /** Why approval is needed, naming the rule or mode. */
    decisionReason: string;
    /** The path the question is about, when there is one. */
    blockedPath?: string;
    /** Rules that would allow this call (`Bash(curl:*)`). */
    suggestions?: string[];
    /** The subagent making the call; absent on the main thread. */
    agentID?: string;
  },
) => Promise<PermissionDecision | null | undefined>;

export type PermissionGateOptions = {
  mode: PermissionMode;
  /** Parsed rules from config files, flags and SDK options (see `loadConfig`, `rulesFromToolLists`). */
  rules?: readonly PermissionRule[];
  /** The session's working directory; relative paths in tool calls resolve against it. */
  workspace: string;
  /** More directories the agent may read and edit (`--add-dir`, `additionalDirectories`). */
  additionalDirs?: readonly string[];
  /** Without it, "ask" means deny (headless). */
  onAsk?: AskCallback;
  /** Default: `os.homedir()`. */
  home?: string;
  /** Default: `resolveCairnHome(env)`; protected from writes. */
  cairnHome?: string;
  /**
   * The environment tool children get. Its PATH is used to see where a listed command would run
   * from: one found inside the workspace is not trusted. Default: `process.env`.
   */
  env: NodeJS.ProcessEnv;
  /** How messages say to lift a restriction. Default: "use --force". */
  forceHint?: string;
  /**
   * The run's tools: what each declares it touches (`ToolEffects`) is what the rules and the mode
   * are applied to. A tool missing here, or declaring nothing, is asked about.
   */
  tools: readonly ToolDeclaration[];
};

/** The engine's `canUseTool`, plus synchronous evaluation and a mode switch. */
export type PermissionGate = CanUseTool & {
  /** Decides a call without asking anyone (what the gate would do before `onAsk`). */
  evaluate(toolName: string, input: Record<string, unknown>): PermissionVerdict;
  readonly mode: PermissionMode;
  /** Applies to later calls (SDK `setPermissionMode`). */
  setMode(mode: PermissionMode): void;
  /** The directories the agent may use, lexical and real. */
  readonly roots: readonly string[];
};

export function createPermissionGate(options: PermissionGateOptions): PermissionGate {
  const home = options.home ?? os.homedir();
  const { env } = options;
  const workspace = path.resolve(options.workspace);
  const given = [workspace, ...(options.additionalDirs ?? []).map((dir) => path.resolve(workspace, dir))];
  const roots = [...new Set(given.flatMap((dir) => [dir, resolveRoot(dir, workspace)]))];
  const ctx: PolicyContext = {
    mode: options.mode,
    roots,
    cwd: workspace,
    home,
    cairnHome: resolveRoot(options.cairnHome ?? resolveCairnHome(env, home)),
    rules: compileRules(options.rules ?? [], workspace, home),
    forceHint: options.forceHint ?? "use --force",
    ...(env.PATH !== undefined ? { searchPath: env.PATH } : {}),
  };

  const declared = new Map(options.tools.map((tool) => [tool.name, tool]));
  const evaluate = (toolName: string, input: Record<string, unknown>): PermissionVerdict =>
    evaluateToolCall(declared.get(toolName) ?? { name: toolName }, input ?? {}, ctx);

  const gate: CanUseTool = async (toolName, input, callOptions) => {
    const verdict = evaluate(toolName, input);
    const hook = callOptions.hookDecision;
    if (verdict.behavior === "deny") return { behavior: "deny", message: verdict.message };
    // A PreToolUse hook's allow spares the question (never a deny); its ask makes one.
    if (verdict.behavior === "allow" && hook?.decision !== "ask") return { behavior: "allow" };
    if (verdict.behavior === "ask" && hook?.decision === "allow") return { behavior: "allow" };
    const decisionReason =
      verdict.behavior === "ask"
        ? verdict.message
        : `the hook ${hook!.hook} asks for approval${hook!.reason ? `: ${hook!.reason}` : ""}`;
    const info = {
      decisionReason,
      ...(verdict.path ? { blockedPath: verdict.path } : {}),
      ...(verdict.suggestions ? { suggestions: verdict.suggestions } : {}),
    };
    let answer: PermissionDecision | null | undefined;
    try {
      answer = await callOptions.beforeAsk?.(info);
      // Nobody to ask to leave plan mode: the call runs unasked (ExitPlanMode hands its plan over).
      if (!answer && !options.onAsk && declared.get(toolName)?.effects?.asksUser === "exit-plan")
        return { behavior: "allow" };
      if (!answer && !options.onAsk) return { behavior: "deny", message: decisionReason };
      answer ??= await options.onAsk!(toolName, input, {
        signal: callOptions.signal,
        toolUseID: callOptions.toolUseID,
        ...(callOptions.agentID !== undefined ? { agentID: callOptions.agentID } : {}),
        ...info,
      });
    } catch (error) {
      return { behavior: "deny", message: `the permission callback failed: ${(error as Error).message}` };
    }
    if (!answer) return { behavior: "deny", message: `not approved: ${decisionReason}` };
    if (answer.behavior === "deny") return answer;
    if (answer.updatedInput) {
      // The callback may rewrite the input; a rewrite cannot slip past a deny rule.
      const recheck = evaluate(toolName, answer.updatedInput);
      if (recheck.behavior === "deny")
        return { behavior: "deny", message: `the changed input is denied: ${recheck.message}` };
      return { behavior: "allow", updatedInput: answer.updatedInput };
    }
    return { behavior: "allow" };
  };

  Object.defineProperty(gate, "mode", { get: () => ctx.mode, enumerable: true });
  return Object.assign(gate, {
    evaluate,
    setMode(mode: PermissionMode) {
      ctx.mode = mode;
    },
    roots,
  }) as unknown as PermissionGate;
}
