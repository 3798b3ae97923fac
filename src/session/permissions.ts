import { suggestionUpdates } from "../engine/hooks.js";
import type { CanUseTool as EngineCanUseTool, PermissionDecision } from "../engine/tool-runner.js";
import type { AskCallback, PermissionGate } from "../permissions/gate.js";
import { parseRule, splitRuleList } from "../permissions/rules.js";
import {
  gateMode,
  isSessionPermissionMode,
  type PermissionMode,
  type PermissionRule,
  type SessionPermissionMode,
} from "../permissions/types.js";
import type { AssembledRun } from "../run/assemble.js";
import { buildPermissionGate, type PermissionSetup } from "../run/permissions.js";
import { randomUuid } from "../util/random-id.js";
import type { PermissionRequest } from "./events.js";

/** What a door says about permissions when it opens a session (flags, SDK options, ACP's mode). */
export type PermissionSettings = {
  /** The mode chosen; default: the user config's `defaultMode`, else `default`. */
  mode?: SessionPermissionMode;
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  additionalDirectories?: readonly string[];
  /**
   * Whether the door answers permission requests. Without an answerer, what the rules and the mode
   * leave open is denied at once, and the denial says why (nothing is skipped silently).
   */
  answered: boolean;
  /** How denial messages tell the user to lift a restriction (`use --force`, `set permissionMode…`). */
  forceHint: string;
  /** Names the rules' origin in denial messages ("SDK", "--allowedTools"). */
  source: string;
  /** Rules besides the lists, each naming its own source (the SDK's `settings` and sandbox deny lists). */
  rules?: readonly PermissionRule[];
  /** `bypassPermissions` is refused, also later (the SDK `settings`' `disableBypassPermissionsMode`). */
  bypassDisabled?: boolean;
  /** The mode when neither the door nor the user config chose one (default `default`). */
  fallbackMode?: PermissionMode;
  /** How that fallback is reported (print mode runs `acceptEdits` and calls it `default`). */
  fallbackReportedAs?: string;
};

/** How the session asks: emits the request as an event and resolves with the answer (or the abort). */
export type Asker = (request: Omit<PermissionRequest, "display">, signal: AbortSignal) => Promise<unknown>;

/**
 * The permissions of one session: the gate built from the door's settings and the config files, the
 * mode now in effect, and every rule an "always allow" answer added. The gate's "ask" becomes a
 * `permission_request` event (through `ask`), answered by id; the answer's `updatedPermissions`
 * stay for the rest of the session, whichever door the next prompt comes through.
 */
export class SessionPermissions {
  /** The mode as the door named it; undefined until `adopt()` when it named none. */
  mode: SessionPermissionMode | undefined;
  private gate: PermissionGate | undefined;
  /** The door or the user chose the mode (else it is the config's or the fallback). */
  private chosen: boolean;
  private run: AssembledRun | undefined;
  /** Rules and directories added by answers, for the rest of the session. */
  private readonly added = { allow: [] as string[], deny: [] as string[], dirs: [] as string[] };

  constructor(
    private readonly settings: PermissionSettings,
    private readonly ask: Asker,
    /** An answer changed the mode (its `setMode` update, or approving to leave plan mode). */
    private readonly modeChanged: (mode: SessionPermissionMode) => void = () => {},
  ) {
    this.mode = settings.mode;
    this.chosen = settings.mode !== undefined;
  }

  /** The setup the run assembly builds the first gate from. */
  setup(): PermissionSetup {
    const { settings } = this;
    const onAsk: AskCallback | undefined = settings.answered
      ? async (toolName, input, { signal, toolUseID, decisionReason, blockedPath, suggestions, agentID }) => {
          if (this.mode === "dontAsk") {
            return {
              behavior: "deny",
              message: `${decisionReason} (permission mode "dontAsk" denies what is not pre-approved)`,
            };
          }
          const answer = await this.ask(
            {
              id: randomUuid(),
              toolName,
              input,
              toolUseId: toolUseID,
              reason: decisionReason,
              suggestions: suggestionUpdates(suggestions),
              ...(blockedPath !== undefined ? { blockedPath } : {}),
              ...(agentID !== undefined ? { agentId: agentID } : {}),
            },
            signal,
          );
          const decision = await this.decision(answer);
          if (decision?.behavior === "allow") this.leftPlanMode(toolName);
          return decision;
        }
      : undefined;
    return {
      ...(this.mode !== undefined ? { mode: gateMode(this.mode) } : {}),
      fallbackMode: settings.fallbackMode ?? "default",
      ...(settings.fallbackReportedAs !== undefined
        ? { fallbackReportedAs: settings.fallbackReportedAs }
        : {}),
      allowedTools: [...(settings.allowedTools ?? []), ...this.added.allow],
      disallowedTools: [...(settings.disallowedTools ?? []), ...this.added.deny],
      addDirs: [...(settings.additionalDirectories ?? []), ...this.added.dirs],
      ...(onAsk ? { onAsk } : {}),
      forceHint: settings.forceHint,
      source: settings.source,
      ...(settings.rules ? { rules: settings.rules } : {}),
    };
  }

  /**
   * The rules besides the config files' (for the interactive `/permissions`): the door's own lists
   * (the CLI's `--allowedTools` / `--disallowedTools`, the SDK's options), then those answers added
   * for the rest of the session ("allow for this session").
   */
  doorRules(): { behavior: "allow" | "deny"; text: string; source: string }[] {
    const { settings, added } = this;
    const listed = (list: readonly string[], behavior: "allow" | "deny", source: string) =>
      list.flatMap(splitRuleList).map((text) => ({ behavior, text, source }));
    return [
      ...listed(settings.disallowedTools ?? [], "deny", settings.source),
      ...listed(settings.allowedTools ?? [], "allow", settings.source),
      ...listed(added.deny, "deny", "answered in this session"),
      ...listed(added.allow, "allow", "answered in this session"),
    ];
  }

  /** Takes the gate the run assembly built (once per session), and the config to rebuild it from. */
  adopt(run: AssembledRun): void {
    if (this.run) return;
    this.run = run;
    this.gate = run.gate;
    // No mode given: the user config's defaultMode, else "default" (what the gate enforces).
    this.mode ??= run.gate?.mode;
  }

  /** The directories the agent may write (lexical and real), once assembled. */
  roots(cwd: string): readonly string[] {
    return this.gate?.roots ?? [cwd];
  }

  /**
   * The mode to report when the door or the user chose it (undefined: the run assembly reports
   * what its gate enforces, print mode's fallback under the reference's name).
   */
  get chosenMode(): SessionPermissionMode | undefined {
    return this.chosen ? this.mode : undefined;
  }

  /** Applies to the next tool call, also inside the running turn. */
  setMode(mode: SessionPermissionMode): void {
    if (mode === "bypassPermissions" && this.settings.bypassDisabled)
      throw new Error(
        "cairn: bypassPermissions is disabled by the settings (permissions.disableBypassPermissionsMode).",
      );
    this.chosen = true;
    this.mode = mode;
    this.gate?.setMode(gateMode(mode));
  }

  /** The engine's `canUseTool`. */
  readonly canUseTool: EngineCanUseTool = async (toolName, input, options) => {
    if (!this.gate) throw new Error("cairn: the permission gate was used before it was prepared.");
    return this.gate(toolName, input, options);
  };

  /**
   * Builds the gate again from the same loaded config: every rule added so far, the mode now in
   * effect, and the run's tools as they are now (also after MCP servers changed).
   */
  rebuild(): void {
    if (!this.run) return;
    const { gate } = buildPermissionGate(
      this.run.config,
      this.setup(),
      this.run.cwd,
      this.run.toolEnv,
      this.run.declarations,
    );
    if (this.mode !== undefined) gate.setMode(gateMode(this.mode));
    this.gate = gate;
  }

  /**
   * Approving a call that asks to leave plan mode (ExitPlanMode) leaves it: for the mode the
   * answer's `setMode` chose, else for `default`.
   */
  private leftPlanMode(toolName: string): void {
    const tool = this.run?.declarations.find((one) => one.name === toolName);
    if (tool?.effects?.asksUser !== "exit-plan" || this.mode !== "plan") return;
    this.setMode("default");
    this.modeChanged("default");
  }

  /** An answer in the gate's decision shape (`null`: the gate denies, naming why). */
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
        this.apply(result.updatedPermissions);
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
   * `updatedPermissions` for the rest of the session: allow/deny rules and directories rebuild the
   * gate, `setMode` switches the mode. A malformed rule throws (the gate then denies the call, saying
   * the answer failed).
   */
  private apply(updates: readonly unknown[]): void {
    let rebuild = false;
    for (const entry of updates) {
      if (!entry || typeof entry !== "object") continue;
      const update = entry as {
        type?: unknown;
        mode?: unknown;
        behavior?: unknown;
        rules?: unknown;
        directories?: unknown;
      };
      if (update.type === "setMode" && isSessionPermissionMode(update.mode)) {
        this.setMode(update.mode);
        this.modeChanged(update.mode);
      } else if (update.type === "addRules" && (update.behavior === "allow" || update.behavior === "deny")) {
        for (const value of Array.isArray(update.rules) ? update.rules : []) {
          const text = ruleText(value);
          parseRule(text, update.behavior, "SDK updatedPermissions");
          this.added[update.behavior].push(text);
          rebuild = true;
        }
      } else if (update.type === "addDirectories" && Array.isArray(update.directories)) {
        this.added.dirs.push(...update.directories.filter((dir): dir is string => typeof dir === "string"));
        rebuild = true;
      }
    }
    if (rebuild) this.rebuild();
  }
}

function ruleText(value: { toolName?: unknown; ruleContent?: unknown }): string {
  const tool = typeof value?.toolName === "string" ? value.toolName : "";
  return typeof value?.ruleContent === "string" && value.ruleContent !== ""
    ? `${tool}(${value.ruleContent})`
    : tool;
}
