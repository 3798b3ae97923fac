import { randomUUID } from "node:crypto";
import type { CanUseTool as EngineCanUseTool, PermissionDecision } from "../engine/tool-runner.js";
import type { AskCallback, PermissionGate } from "../permissions/gate.js";
import { parseRule } from "../permissions/rules.js";
import { preparePermissionGate } from "../permissions/setup.js";
import { type PermissionMode as GateMode, isPermissionMode } from "../permissions/types.js";
import { childEnvironment } from "../tools/child-env.js";
import type { PermissionMode } from "./messages.js";
import type { PermissionUpdate, ResolvedOptions } from "./options.js";
import { STRUCTURED_OUTPUT_TOOL } from "./structured-output.js";

/** How denial messages tell an SDK user to lift a restriction (the CLI says "use --force"). */
export const SDK_FORCE_HINT = 'set permissionMode: "bypassPermissions"';

/**
 * The gate's mode for an SDK mode. The gate knows the four modes of the permission engine; the
 * convention's other two map onto `default`:
 * - `dontAsk`: `default`, and "ask" is denied without calling `canUseTool` (see `onAsk`).
 * - `auto`: no classifier in cairn; the rules and the read-only list are what decides without
 *   asking, and `canUseTool` gets the rest, exactly as `default`.
 */
export function gateMode(mode: PermissionMode): GateMode {
  return mode === "dontAsk" || mode === "auto" ? "default" : mode;
}

/**
 * The permissions of one `query()`: the permission engine's gate built from the options and the
 * config files, with the caller's `canUseTool` answering its "ask" verdicts. `canUseTool` (below) is
 * what the engine asks before every tool call.
 */
export class SdkPermissions {
  /** The mode as the caller named it; undefined until `prepare()` when the option was omitted. */
  mode: PermissionMode | undefined;
  private gate: PermissionGate | undefined;
  private generation = 0;
  /** Rules and directories added by `updatedPermissions` answers, for the rest of the query. */
  private readonly added = { allow: [] as string[], deny: [] as string[], dirs: [] as string[] };

  constructor(private readonly options: ResolvedOptions) {
    this.mode = options.permissionMode;
  }

  /**
   * Loads the config files and builds the gate (once per query). Returns the config warnings.
   * Throws `ConfigFileError` for a malformed config file.
   */
  async prepare(): Promise<string[]> {
    if (this.gate) return [];
    const { gate, warnings } = await this.build();
    this.gate = gate;
    // No mode given: the user config's defaultMode, else "default" (what the gate chose).
    this.mode ??= gate.mode;
    return warnings;
  }

  /** The directories the agent may write (lexical and real), once prepared. */
  get roots(): readonly string[] {
    return this.gate?.roots ?? [this.options.cwd];
  }

  /** `setPermissionMode()`: applies to the next tool call, also inside the running turn. */
  setMode(mode: PermissionMode): void {
    this.mode = mode;
    this.gate?.setMode(gateMode(mode));
  }

  /** The engine's `canUseTool`. */
  readonly canUseTool: EngineCanUseTool = async (toolName, input, options) => {
    // The SDK's own answer channel, not an action: never asked about, in any mode.
    if (toolName === STRUCTURED_OUTPUT_TOOL) return { behavior: "allow" };
    if (!this.gate) throw new Error("cairn: the permission gate was used before it was prepared.");
    return this.gate(toolName, input, options);
  };

  private async build(): Promise<{ gate: PermissionGate; warnings: string[]; generation: number }> {
    const { options } = this;
    const { canUseTool } = options;
    const onAsk: AskCallback | undefined = canUseTool
      ? async (toolName, input, { signal, toolUseID, decisionReason, blockedPath, suggestions }) => {
          if (this.mode === "dontAsk") {
            return {
              behavior: "deny",
              message: `${decisionReason} (permission mode "dontAsk" denies what is not pre-approved)`,
            };
          }
          const answer = await canUseTool(toolName, input, {
            signal,
            toolUseID,
            requestId: randomUUID(),
            suggestions: suggestionUpdates(suggestions),
            decisionReason,
            ...(blockedPath !== undefined ? { blockedPath } : {}),
          });
          return this.decision(answer);
        }
      : undefined;
    const env = childEnvironment((options.env ?? process.env) as NodeJS.ProcessEnv);
    const generation = ++this.generation;
    const prepared = await preparePermissionGate({
      cwd: options.cwd,
      ...(this.mode !== undefined ? { mode: gateMode(this.mode) } : {}),
      fallbackMode: "default",
      allowedTools: [...(options.allowedTools ?? []), ...this.added.allow],
      disallowedTools: [...(options.disallowedTools ?? []), ...this.added.deny],
      addDirs: [...(options.additionalDirectories ?? []), ...this.added.dirs],
      ...(onAsk ? { onAsk } : {}),
      env,
      forceHint: SDK_FORCE_HINT,
      source: "SDK",
    });
    return { ...prepared, generation };
  }

  /** `canUseTool`'s answer in the gate's decision shape (`null`: the gate denies, naming why). */
  private async decision(answer: unknown): Promise<PermissionDecision | null> {
    if (!answer || typeof answer !== "object") return null;
    const result = answer as {
      behavior?: unknown;
      updatedInput?: unknown;
      updatedPermissions?: unknown;
      message?: unknown;
      interrupt?: unknown;
    };
    if (result.behavior === "allow") {
      if (Array.isArray(result.updatedPermissions) && result.updatedPermissions.length > 0) {
        await this.apply(result.updatedPermissions as PermissionUpdate[]);
      }
      const updated = result.updatedInput;
      return updated && typeof updated === "object" && !Array.isArray(updated)
        ? { behavior: "allow", updatedInput: updated as Record<string, unknown> }
        : { behavior: "allow" };
    }
    if (result.behavior === "deny") {
      return {
        behavior: "deny",
        message: typeof result.message === "string" ? result.message : "",
        ...(result.interrupt === true ? { interrupt: true } : {}),
      };
    }
    return null;
  }

  /**
   * Applies `updatedPermissions` for the rest of the query: allow/deny rules and directories rebuild
   * the gate, `setMode` switches the mode. A malformed rule throws (the gate then denies the call,
   * saying the callback failed).
   */
  private async apply(updates: PermissionUpdate[]): Promise<void> {
    let rebuild = false;
    for (const update of updates) {
      if (!update || typeof update !== "object") continue;
      if (update.type === "setMode" && isSdkMode(update.mode)) {
        this.setMode(update.mode);
      } else if (update.type === "addRules" && (update.behavior === "allow" || update.behavior === "deny")) {
        for (const value of update.rules ?? []) {
          const text = ruleText(value);
          parseRule(text, update.behavior, "SDK updatedPermissions");
          this.added[update.behavior].push(text);
          rebuild = true;
        }
      } else if (update.type === "addDirectories" && Array.isArray(update.directories)) {
        this.added.dirs.push(...update.directories.filter((dir) => typeof dir === "string"));
        rebuild = true;
      }
    }
    if (!rebuild) return;
    const { gate, generation } = await this.build();
    // Only the newest rebuild wins (parallel reads may be asked about at the same time); it holds
    // every rule added so far.
    if (generation === this.generation) {
      if (this.mode !== undefined) gate.setMode(gateMode(this.mode));
      this.gate = gate;
    }
  }
}

function isSdkMode(value: unknown): value is PermissionMode {
  return isPermissionMode(value) || value === "dontAsk" || value === "auto";
}

function ruleText(value: { toolName?: unknown; ruleContent?: unknown }): string {
  const tool = typeof value?.toolName === "string" ? value.toolName : "";
  return typeof value?.ruleContent === "string" && value.ruleContent !== ""
    ? `${tool}(${value.ruleContent})`
    : tool;
}

/** The gate's suggested rules (`"Bash(curl:*)"`) as the convention's `PermissionUpdate`s. */
function suggestionUpdates(suggestions: readonly string[] | undefined): PermissionUpdate[] {
  if (!suggestions || suggestions.length === 0) return [];
  return [
    {
      type: "addRules",
      rules: suggestions.map((text) => {
        const open = text.indexOf("(");
        return open === -1 || !text.endsWith(")")
          ? { toolName: text }
          : { toolName: text.slice(0, open), ruleContent: text.slice(open + 1, -1) };
      }),
      behavior: "allow",
      destination: "session",
    },
  ];
}
