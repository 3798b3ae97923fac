/**
 * Permission modes (the agent-SDK convention's names):
 * - `default`: reads inside the workspace and built-in read-only shell commands run; edits, other
 *   shell commands, MCP and unknown tools are "ask" (the `onAsk` callback decides; without one, denied).
 * - `acceptEdits`: `default` plus file edits (Write, Edit) inside the workspace. The print-mode CLI
 *   runs in this mode unless told otherwise.
 * - `plan`: read-only. Reads and read-only shell commands only; every edit and every other command is
 *   denied, whatever the allow rules say.
 * - `bypassPermissions` (`--force`): everything runs except what a deny or ask rule names; protected
 *   paths still need an explicit allow rule.
 */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions";

export const PERMISSION_MODES: readonly PermissionMode[] = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
];

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODES as readonly string[]).includes(value);
}

/**
 * The one permission-mode type of a session and every door (the SDK's `PermissionMode`, ACP's modes,
 * the CLI's `--permission-mode`): the gate's four modes plus the convention's two that map onto
 * `default` (`gateMode`):
 * - `dontAsk`: `default`, and what would be asked is denied without asking anyone.
 * - `auto`: no classifier in cairn; the rules and the read-only list decide without asking, and the
 *   rest is asked, exactly as `default`.
 */
export type SessionPermissionMode = PermissionMode | "dontAsk" | "auto";

export function isSessionPermissionMode(value: unknown): value is SessionPermissionMode {
  return isPermissionMode(value) || value === "dontAsk" || value === "auto";
}

/** The mode the gate enforces for a session's mode. */
export function gateMode(mode: SessionPermissionMode): PermissionMode {
  return mode === "dontAsk" || mode === "auto" ? "default" : mode;
}

export type RuleBehavior = "allow" | "deny" | "ask";

/** How a shell rule matches a command's words (after quotes are removed and wrappers unwrapped). */
export type ShellMatcher =
  /** `Bash`, `Bash(*)`, `Shell(*)`: every command. */
  | { kind: "any" }
  /** `Bash(git status:*)`, `Shell(git)`, `Shell(curl:*)`, `Bash(ls *)`: these first words, any arguments after. */
  | { kind: "prefix"; words: string[] }
  /** `Bash(npm run test)`: exactly these words. */
  | { kind: "exact"; words: string[] }
  /** `Bash(git * main)`, `Shell(npm:run *)`: a wildcard over the words joined by single spaces. */
  | { kind: "glob"; pattern: string; regex: RegExp };

/** What a rule is about, in one form whichever spelling it was written in. */
export type RuleTarget =
  /** A bare tool name (`Read`, `Bash`, `TodoWrite`, a custom tool): every call of that tool. */
  | { kind: "tool"; tool: string }
  /** `mcp__server`, `mcp__server__*`, `mcp__server__tool`, `Mcp(server:tool)`. */
  | { kind: "mcp"; server: string; tool?: string }
  /** `Bash(...)` / `Shell(...)`. */
  | { kind: "shell"; matcher: ShellMatcher }
  /**
   * `Read(glob)`: reading a path (Read, Glob, Grep, LS, shell input redirections);
   * `Edit(glob)` / `Write(glob)`: writing a path (Write, Edit, shell output redirections).
   * `tools` narrows it when the rule named a specific read tool (`Grep(src/**)`).
   */
  | { kind: "path"; access: "read" | "write"; pattern: string; tools?: string[] }
  /**
   * `WebFetch(domain:example.com)`: calls of that tool reaching this host (the tool declares it,
   * `ToolEffects.domain`). `*.example.com` names the subdomains; a deny or ask rule also covers
   * the subdomains of the host it names.
   */
  | { kind: "domain"; tool: string; domain: string }
  /** A content rule for a tool cairn cannot interpret (`Agent(x)`): deny/ask the whole tool, never allow. */
  | { kind: "opaque"; tool: string; content: string };

export type PermissionRule = {
  behavior: RuleBehavior;
  /** The rule as written, for messages: `Bash(rm:*)`. */
  text: string;
  /** Where it came from: `user config /home/me/.cairn/config.json`, `--allowedTools`, `SDK disallowedTools`. */
  source: string;
  target: RuleTarget;
};

/** The outcome of one permission check. */
export type PermissionVerdict = {
  behavior: RuleBehavior;
  /** Why, naming the rule or mode that decided; told to the model when denied. */
  message: string;
  /** The rule that decided, when one did. */
  rule?: PermissionRule;
  /** The path that was checked, when the decision was about one (`blockedPath` for callbacks). */
  path?: string;
  /** Rules that would allow the call, for "ask" verdicts (`Bash(curl:*)`). */
  suggestions?: string[];
  /**
   * What kind of reason, when no rule decided: `outside` (path outside the workspace), `protected`,
   * `edit` (edits need approval in default mode), `redirect` (a shell redirection writes a file),
   * `unparseable` (a command line the parser rejected), `unresolvable` (symlink loop, `~user`).
   */
  code?: "outside" | "protected" | "edit" | "redirect" | "unparseable" | "unresolvable";
};
