import { randomUUID } from "node:crypto";
import { suggestionUpdates } from "../engine/hooks.js";
import type { CanUseTool as EngineCanUseTool, PermissionDecision } from "../engine/tool-runner.js";
import type { AskCallback, PermissionGate } from "../permissions/gate.js";
import { parseRule } from "../permissions/rules.js";
import { type PermissionMode as GateMode, isPermissionMode } from "../permissions/types.js";
import type { AssembledRun } from "../run/assemble.js";
import { buildPermissionGate, type PermissionSetup } from "../run/permissions.js";
import { unlessAborted } from "../util/unless-aborted.js";
import type { PermissionMode } from "./messages.js";
import type { CanUseTool, PermissionUpdate, ResolvedOptions } from "./options.js";
import { promptToolAsker } from "./permission-prompt-tool.js";

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
  private run: AssembledRun | undefined;
  /** Rules and directories added by `updatedPermissions` answers, for the rest of the query. */
  private readonly added = { allow: [] as string[], deny: [] as string[], dirs: [] as string[] };

  constructor(private readonly options: ResolvedOptions) {
    this.mode = options.permissionMode;
  }

  /** The setup the run assembly builds the first gate from. */
  setup(): PermissionSetup {
    return this.permissionSetup();
  }

  /** Takes the gate the run assembly built (once per query), and the config to rebuild it from. */
  adopt(run: AssembledRun): void {
    if (this.run) return;
    this.run = run;
    this.gate = run.gate;
    // No mode given: the user config's defaultMode, else "default" (what the gate enforces).
    this.mode ??= run.gate?.mode;
  }

  /** The directories the agent may write (lexical and real), once prepared. */
  get roots(): readonly string[] {
    return this.gate?.roots ?? [this.options.cwd];
  }

  /** `setPermissionMode()`: applies to the next tool call, also inside the running turn. */
  setMode(mode: PermissionMode): void {
    if (mode === "bypassPermissions" && this.options.bypassDisabled)
      throw new Error(
        "cairn: bypassPermissions is disabled by the settings option (permissions.disableBypassPermissionsMode).",
      );
    this.mode = mode;
    this.gate?.setMode(gateMode(mode));
  }

  /** The engine's `canUseTool`. */
  readonly canUseTool: EngineCanUseTool = async (toolName, input, options) => {
    if (!this.gate) throw new Error("cairn: the permission gate was used before it was prepared.");
    return this.gate(toolName, input, options);
  };

  private permissionSetup(): PermissionSetup {
    const { options } = this;
    const ask = this.asker();
    const onAsk: AskCallback | undefined = ask
      ? async (toolName, input, { signal, toolUseID, decisionReason, blockedPath, suggestions, agentID }) => {
          if (this.mode === "dontAsk") {
            return {
              behavior: "deny",
              message: `${decisionReason} (permission mode "dontAsk" denies what is not pre-approved)`,
            };
          }
          // A callback that never settles (it missed the signal it was given) must not keep an
          // aborted query, and its host process, waiting for ever.
          const answer = await unlessAborted(
            signal,
            ask(toolName, input, {
              signal,
              toolUseID,
              requestId: randomUUID(),
              suggestions: suggestionUpdates(suggestions),
              decisionReason,
              ...(blockedPath !== undefined ? { blockedPath } : {}),
              ...(agentID !== undefined ? { agentID } : {}),
            }),
            () => {
              throw signal.reason;
            },
          );
          return this.decision(answer);
        }
      : undefined;
    return {
      ...(this.mode !== undefined ? { mode: gateMode(this.mode) } : {}),
      fallbackMode: "default",
      allowedTools: [...(options.allowedTools ?? []), ...this.added.allow],
      disallowedTools: [...(options.disallowedTools ?? []), ...this.added.deny],
      addDirs: [...(options.additionalDirectories ?? []), ...this.added.dirs],
      rules: options.settingsRules,
      ...(onAsk ? { onAsk } : {}),
      forceHint: SDK_FORCE_HINT,
      source: "SDK",
    };
  }

  /** Who answers "ask": `canUseTool`, else the MCP tool named by `permissionPromptToolName`. */
  private asker(): CanUseTool | undefined {
    const { canUseTool, permissionPromptToolName, cwd } = this.options;
    if (canUseTool) return canUseTool;
    if (permissionPromptToolName === undefined) return undefined;
    return promptToolAsker(permissionPromptToolName, () => this.run?.tools ?? [], cwd);
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
    if (rebuild) this.rebuild();
  }

  /**
   * Builds the gate again from the same loaded config: every rule added so far, the mode now in
   * effect, and the run's tools as they are now (also after MCP servers changed).
   */
  rebuild(): void {
    if (!this.run) return;
    const { gate } = buildPermissionGate(
      this.run.config,
      this.permissionSetup(),
      this.run.cwd,
      this.run.toolEnv,
      this.run.declarations,
    );
    if (this.mode !== undefined) gate.setMode(gateMode(this.mode));
    this.gate = gate;
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
