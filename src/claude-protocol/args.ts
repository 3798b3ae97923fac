import type { Options } from "../sdk/options.js";
import { readCappedText } from "../util/read-capped.js";

/**
 * The argv the official agent SDKs give the CLI they spawn (docs/protocols.md): always
 * `--output-format stream-json --verbose --input-format stream-json`, then one flag per option, as
 * `--flag=value` (SDK 0.3) or `--flag value` (older SDKs, the Python SDK). Unknown flags are reported
 * once on stderr and skipped, never fatal: the SDKs add flags faster than any CLI follows.
 */
export type ProtocolArgs = {
  options: Options;
  /** `--permission-prompt-tool stdio`: calls that would "ask" go to the host as `can_use_tool`. */
  permissionPromptStdio: boolean;
  /** `--replay-user-messages`: each prompt is echoed back as a `user` message. */
  replayUserMessages: boolean;
  /** Flags that are understood but change nothing in cairn, and unknown ones: one line each. */
  warnings: string[];
};

/** Flags that take a value. */
const VALUE_FLAGS = new Set([
  "output-format",
  "input-format",
  "model",
  "max-turns",
  "allowedTools",
  "allowed-tools",
  "disallowedTools",
  "disallowed-tools",
  "tools",
  "permission-mode",
  "permission-prompt-tool",
  "resume",
  "session-id",
  "setting-sources",
  "mcp-config",
  "add-dir",
  "json-schema",
  "max-budget-usd",
  "fallback-model",
  "effort",
  "thinking",
  "max-thinking-tokens",
  "system-prompt",
  "append-system-prompt",
  "settings",
  "agent",
  "betas",
  "debug-file",
  "permission-prompts",
  "task-budget",
  "thinking-display",
  "channels",
  "project-config-root",
  "plugin-dir",
  "plugin-dir-no-mcp",
  "resume-session-at",
  "resume-drops-turn",
  "initialize-fields",
  "managed-settings",
]);

/** Flags accepted for compatibility that have nothing to do in cairn (no reason to warn). */
const NO_OP_FLAGS = new Set([
  "verbose",
  "output-format",
  "input-format",
  "allow-dangerously-skip-permissions",
  "print",
]);

export function parseProtocolArgs(argv: readonly string[]): ProtocolArgs {
  const options: Options = {};
  const warnings: string[] = [];
  const result: ProtocolArgs = { options, permissionPromptStdio: false, replayUserMessages: false, warnings };
  const list = (value: string) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
  const ignored = (flag: string, why: string) => warnings.push(`--${flag} is accepted but ${why}`);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      warnings.push(`unexpected argument ${JSON.stringify(arg)} ignored (the prompt comes on stdin)`);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (value === undefined && VALUE_FLAGS.has(flag)) value = argv[++i] ?? "";
    if (
      value === undefined &&
      !VALUE_FLAGS.has(flag) &&
      argv[i + 1] !== undefined &&
      !argv[i + 1]!.startsWith("--") &&
      !KNOWN_BOOLEANS.has(flag)
    )
      value = argv[++i]; // an unknown flag's value (`extraArgs` as `--k v`)
    if (NO_OP_FLAGS.has(flag)) continue;
    switch (flag) {
      case "model":
        options.model = value!;
        break;
      case "max-turns":
        options.maxTurns = Number(value);
        break;
      case "allowedTools":
      case "allowed-tools":
        options.allowedTools = [...(options.allowedTools ?? []), ...list(value!)];
        break;
      case "disallowedTools":
      case "disallowed-tools":
        options.disallowedTools = [...(options.disallowedTools ?? []), ...list(value!)];
        break;
      case "tools":
        if (value !== "default") options.tools = list(value!);
        break;
      case "permission-mode":
        options.permissionMode = value as Options["permissionMode"] & string;
        break;
      case "permission-prompt-tool":
        if (value === "stdio") result.permissionPromptStdio = true;
        else
          ignored(
            flag,
            `only "stdio" is supported (got ${JSON.stringify(value)}); calls that would ask are denied`,
          );
        break;
      case "include-partial-messages":
        options.includePartialMessages = true;
        break;
      case "include-hook-events":
        options.includeHookEvents = true;
        break;
      case "forward-subagent-text":
        options.forwardSubagentText = true;
        break;
      case "replay-user-messages":
        result.replayUserMessages = true;
        break;
      case "settings":
        // The SDK passes its `sandbox` option here too (merged into `{"sandbox": …}`).
        options.settings = value!;
        break;
      case "resume-session-at":
        options.resumeSessionAt = value!;
        break;
      case "resume":
        options.resume = value!;
        break;
      case "continue":
        options.continue = true;
        break;
      case "fork-session":
        options.forkSession = true;
        break;
      case "session-id":
        options.sessionId = value!;
        break;
      case "no-session-persistence":
        options.persistSession = false;
        break;
      case "plugin-dir":
      case "plugin-dir-no-mcp":
        options.plugins = [
          ...(options.plugins ?? []),
          {
            type: "local",
            path: value!,
            ...(flag === "plugin-dir-no-mcp" ? { skipMcpDiscovery: true } : {}),
          },
        ];
        break;
      case "setting-sources":
        options.settingSources = list(value!) as Options["settingSources"] & string[];
        break;
      case "mcp-config":
        options.mcpServers = { ...options.mcpServers, ...mcpServersOf(value!) };
        break;
      case "strict-mcp-config":
        options.strictMcpConfig = true;
        break;
      case "add-dir":
        options.additionalDirectories = [...(options.additionalDirectories ?? []), value!];
        break;
      case "json-schema":
        options.outputFormat = { type: "json_schema", schema: JSON.parse(value!) as Record<string, unknown> };
        break;
      case "system-prompt":
        options.systemPrompt = value!;
        break;
      case "append-system-prompt":
        options.systemPrompt = { type: "preset", preset: "claude_code", append: value! };
        break;
      case "max-budget-usd":
        options.maxBudgetUsd = Number(value);
        break;
      case "fallback-model":
        options.fallbackModel = value!;
        break;
      case "effort":
        options.effort = value as Options["effort"];
        break;
      case "max-thinking-tokens":
        options.maxThinkingTokens = Number(value);
        break;
      case "thinking":
        options.thinking = { type: value } as Options["thinking"] & object;
        break;
      default:
        warnings.push(
          `--${flag}${value !== undefined ? ` ${value}` : ""} is not supported by cairn and was ignored`,
        );
    }
  }
  return result;
}

/** Boolean flags: never followed by a value. */
const KNOWN_BOOLEANS = new Set([
  "verbose",
  "include-partial-messages",
  "include-hook-events",
  "forward-subagent-text",
  "replay-user-messages",
  "continue",
  "fork-session",
  "no-session-persistence",
  "strict-mcp-config",
  "allow-dangerously-skip-permissions",
  "debug",
  "session-mirror",
  "await-initialize",
  "managed-settings-in-initialize",
  "print",
]);

/** `--mcp-config`: inline JSON or a file, each `{"mcpServers": {…}}`. */
function mcpServersOf(value: string): Record<string, never> {
  const text = value.trimStart().startsWith("{") ? value : readCappedText(value);
  const parsed = JSON.parse(text) as { mcpServers?: Record<string, never> };
  return parsed.mcpServers ?? {};
}
