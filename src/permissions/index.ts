/**
 * Permissions: modes, rules in both spellings, path containment, shell splitting, config files and
 * the gate the engine asks before every tool call. See docs/security.md.
 */

export {
  type AskCallback,
  createPermissionGate,
  type PermissionGate,
  type PermissionGateOptions,
} from "./gate.js";
export { resolveCairnHome } from "./home.js";
export {
  checkContainment,
  expandHome,
  isInside,
  type PathCheck,
  PathResolutionError,
  type ProtectedMatch,
  protectedPath,
  type ResolvedPath,
  resolvePath,
  resolvePhysical,
  resolveRoot,
  SHELL_RC_FILES,
} from "./paths.js";
export { evaluateShellCommand, evaluateToolCall, type PolicyContext } from "./policy.js";
export {
  formatShellPrefixRule,
  matchShell,
  parseRule,
  parseRules,
  RuleSyntaxError,
  splitRuleList,
} from "./rules.js";
export {
  parseShell,
  type ShellAssignPart,
  type ShellCommandPart,
  type ShellConstructPart,
  type ShellParse,
  type ShellPart,
  type ShellRedirectPart,
  type ShellWord,
} from "./shell.js";
export {
  awkProgramIsSafe,
  checkReadOnlyCommand,
  readOnlyCommandNames,
  sedScriptIsSafe,
} from "./shell-readonly.js";
export { rulesFromToolLists } from "./tool-lists.js";
export {
  isPermissionMode,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionRule,
  type PermissionVerdict,
  type RuleBehavior,
  type RuleTarget,
  type ShellMatcher,
} from "./types.js";
