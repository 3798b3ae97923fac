import path from "node:path";
import { ConfigFileError } from "../config/files.js";
import type { ClaudeHooks, ConfiguredHooks, CursorHooks } from "../config/hooks.js";
import { FIRED_HOOK_EVENTS, type FiredHookEvent, HOOK_EVENTS, type HookInput } from "../engine/hooks.js";
import type { SandboxPolicy } from "../sandbox/policy.js";
import type { ToolDeclaration } from "../tools/types.js";
import { commandHandler } from "./command-handler.js";
import { compileMatcher, HookMatcherError } from "./matching.js";
import { DEFAULT_HOOK_TIMEOUT_MS, type HookHandler } from "./types.js";

export type ConfigHooksOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The workspace's own hooks may run (`--trust`, `trustedWorkspaces`, SDK `settingSources`). */
  trusted: boolean;
  /** How to trust the workspace, for the message saying its hooks were skipped. */
  trustHint: string;
  /** The run's OS sandbox: the workspace's own hooks (code from the repository) run under it. */
  sandbox?: SandboxPolicy;
};

/** The command hooks of the config files, and one line for each thing that is not applied. */
export function configHooks(files: readonly ConfiguredHooks[], options: ConfigHooksOptions) {
  const handlers: HookHandler[] = [];
  const warnings: string[] = [];
  const skipped: string[] = [];
  for (const entry of files) {
    if (entry.level === "project" && !options.trusted) {
      skipped.push(entry.file);
      continue;
    }
    if (entry.format === "claude")
      handlers.push(...claudeHandlers(entry.file, entry.hooks, entry.level, options, warnings));
    else handlers.push(...cursorHandlers(entry.file, entry.hooks, entry.level, options, warnings));
  }
  if (skipped.length > 0) {
    warnings.push(
      `the workspace's own hooks were not run, because the workspace is not trusted: ${skipped.join(", ")} (${options.trustHint}; see docs/hooks.md)`,
    );
  }
  return { handlers, warnings };
}

const fired = new Set<string>(FIRED_HOOK_EVENTS);
const known = new Set<string>(HOOK_EVENTS);

/** Why hooks of `event` do not run, or undefined when they do. */
export function unsupportedEvent(event: string): string | undefined {
  if (fired.has(event)) return undefined;
  return known.has(event) ? `cairn never fires ${event}` : `${event} is not a hook event`;
}

/** A malformed matcher is the file's error (never a hook that silently matches nothing). */
function configMatcher(file: string, matcher: string | undefined, where: string) {
  try {
    return compileMatcher(matcher, where);
  } catch (error) {
    if (error instanceof HookMatcherError) throw new ConfigFileError(file, error.message);
    throw error;
  }
}

function timeoutOf(seconds: number | undefined): number {
  return seconds === undefined ? DEFAULT_HOOK_TIMEOUT_MS : seconds * 1000;
}

function claudeHandlers(
  file: string,
  hooks: ClaudeHooks,
  level: "user" | "project",
  options: ConfigHooksOptions,
  warnings: string[],
): HookHandler[] {
  const handlers: HookHandler[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    const why = unsupportedEvent(event);
    if (why) {
      warnings.push(`${file}: hooks.${event} not applied (${why})`);
      continue;
    }
    groups.forEach((group, index) => {
      const matches = configMatcher(file, group.matcher, `hooks.${event}.${index}`);
      for (const hook of group.hooks) {
        if (hook.type !== "command" || hook.command === undefined) {
          warnings.push(
            `${file}: a hooks.${event} hook of type "${hook.type}" not applied (cairn runs command hooks)`,
          );
          continue;
        }
        handlers.push(
          commandHandler({
            command: hook.command,
            file,
            event: event as FiredHookEvent,
            origin: level,
            dialect: "convention",
            timeoutMs: timeoutOf(hook.timeout),
            matches,
            cwd: options.cwd,
            env: options.env,
            ...(level === "project" && options.sandbox ? { sandbox: options.sandbox } : {}),
          }),
        );
      }
    });
  }
  return handlers;
}

type ToolFilter = (name: string, tool: ToolDeclaration | undefined) => boolean;
const isShell: ToolFilter = (_, tool) => tool?.effects?.kind === "execute";
const isMcp: ToolFilter = (name) => name.startsWith("mcp__");
const isFileRead: ToolFilter = (_, tool) => tool?.payload === "read";
const isFileEdit: ToolFilter = (_, tool) => tool?.effects?.kind === "edit";

/** Cursor's events onto the convention's, narrowed to the tools each one is about. */
const CURSOR_EVENTS: Record<string, { event: FiredHookEvent; tools?: ToolFilter }> = {
  preToolUse: { event: "PreToolUse" },
  postToolUse: { event: "PostToolUse" },
  postToolUseFailure: { event: "PostToolUseFailure" },
  beforeShellExecution: { event: "PreToolUse", tools: isShell },
  afterShellExecution: { event: "PostToolUse", tools: isShell },
  beforeMCPExecution: { event: "PreToolUse", tools: isMcp },
  afterMCPExecution: { event: "PostToolUse", tools: isMcp },
  beforeReadFile: { event: "PreToolUse", tools: isFileRead },
  afterFileEdit: { event: "PostToolUse", tools: isFileEdit },
  beforeSubmitPrompt: { event: "UserPromptSubmit" },
  stop: { event: "Stop" },
  sessionStart: { event: "SessionStart" },
  sessionEnd: { event: "SessionEnd" },
  subagentStart: { event: "SubagentStart" },
  subagentStop: { event: "SubagentStop" },
  preCompact: { event: "PreCompact" },
};

function cursorHandlers(
  file: string,
  hooks: CursorHooks,
  level: "user" | "project",
  options: ConfigHooksOptions,
  warnings: string[],
): HookHandler[] {
  const handlers: HookHandler[] = [];
  for (const [name, entries] of Object.entries(hooks)) {
    const mapped = CURSOR_EVENTS[name];
    if (!mapped) {
      warnings.push(`${file}: hooks.${name} not applied (cairn has no such point)`);
      continue;
    }
    const tools = mapped.tools;
    const matches = (input: HookInput, run: { tool?: ToolDeclaration }) =>
      !tools || ("tool_name" in input && tools(input.tool_name, run.tool));
    for (const entry of entries) {
      handlers.push(
        commandHandler({
          command: entry.command,
          file,
          label: name,
          event: mapped.event,
          origin: level,
          dialect: "cursor",
          timeoutMs: timeoutOf(entry.timeout),
          matches,
          cwd: options.cwd,
          env: options.env,
          ...(level === "project" && options.sandbox ? { sandbox: options.sandbox } : {}),
          adaptInput: (input) => cursorInput(name, input),
        }),
      );
    }
  }
  return handlers;
}

/** The input with Cursor's names added: its event name, conversation id, and the fields its events carry. */
function cursorInput(event: string, input: HookInput): Record<string, unknown> {
  const toolInput =
    "tool_input" in input && input.tool_input && typeof input.tool_input === "object"
      ? (input.tool_input as Record<string, unknown>)
      : {};
  const filePath =
    typeof toolInput.file_path === "string" ? path.resolve(input.cwd, toolInput.file_path) : undefined;
  return {
    ...input,
    hook_event_name: event,
    conversation_id: input.session_id,
    workspace_roots: [input.cwd],
    ...(typeof toolInput.command === "string" ? { command: toolInput.command } : {}),
    ...(filePath ? { file_path: filePath } : {}),
    ...(event === "stop" ? { status: "completed" } : {}),
  };
}
