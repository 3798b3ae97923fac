import { type FlagSpec, findFlag } from "../flags/flag-table.js";
import { listValue, readFlags } from "../flags/flag-values.js";
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

/**
 * Parses the SDKs' argv with the one flag table (src/flags/flag-table.ts, door `protocol`): which
 * flags take a value, which option each sets, and the line a flag accepted but not applied reports.
 * Values are handed on as they come: the SDK's options schema (`query()`) checks them.
 */
export function parseProtocolArgs(argv: readonly string[]): ProtocolArgs {
  const options: Options = {};
  const warnings: string[] = [];
  const result: ProtocolArgs = { options, permissionPromptStdio: false, replayUserMessages: false, warnings };
  const find = (spelling: string) => (spelling.startsWith("--") ? findFlag("protocol", spelling) : undefined);
  for (const read of readFlags(argv, find)) {
    if (read.type === "argument") {
      warnings.push(`unexpected argument ${JSON.stringify(read.text)} ignored (the prompt comes on stdin)`);
      continue;
    }
    if (read.type === "unknown") {
      warnings.push(
        `${read.flag}${read.value !== undefined ? ` ${read.value}` : ""} is not supported by cairn and was ignored`,
      );
      continue;
    }
    const { spec, value } = read;
    const unapplied = spec.unapplied?.protocol;
    if (unapplied) warnings.push(`${spec.flag} is accepted but ${unapplied}`);
    else apply(spec, value ?? "", result);
  }
  return result;
}

/** Sets what one flag of the table means in the SDK's options (`spec.doors.protocol` names it). */
function apply(spec: FlagSpec, value: string, result: ProtocolArgs): void {
  const { options } = result;
  switch (spec.doors.protocol) {
    case "-":
      return;
    case "model":
      options.model = value;
      return;
    case "maxTurns":
      options.maxTurns = Number(value);
      return;
    case "allowedTools":
      options.allowedTools = [...(options.allowedTools ?? []), ...listValue(value)];
      return;
    case "disallowedTools":
      options.disallowedTools = [...(options.disallowedTools ?? []), ...listValue(value)];
      return;
    case "tools":
      if (value !== "default") options.tools = listValue(value);
      return;
    case "permissionMode":
      options.permissionMode = value as Options["permissionMode"] & string;
      return;
    case "permissionPromptStdio":
      if (value === "stdio") result.permissionPromptStdio = true;
      else
        result.warnings.push(
          `${spec.flag} is accepted but only "stdio" is supported (got ${JSON.stringify(value)}); calls that would ask are denied`,
        );
      return;
    case "includePartialMessages":
      options.includePartialMessages = true;
      return;
    case "includeHookEvents":
      options.includeHookEvents = true;
      return;
    case "forwardSubagentText":
      options.forwardSubagentText = true;
      return;
    case "replayUserMessages":
      result.replayUserMessages = true;
      return;
    case "settings":
      // The SDK passes its `sandbox` option here too (merged into `{"sandbox": …}`).
      options.settings = value;
      return;
    case "resumeSessionAt":
      options.resumeSessionAt = value;
      return;
    case "resume":
      options.resume = value;
      return;
    case "databaseUrl":
      options.databaseUrl = value;
      return;
    case "continue":
      options.continue = true;
      return;
    case "forkSession":
      options.forkSession = true;
      return;
    case "sessionId":
      options.sessionId = value;
      return;
    case "persistSession":
      options.persistSession = false;
      return;
    case "plugins":
      options.plugins = [
        ...(options.plugins ?? []),
        {
          type: "local",
          path: value,
          ...(spec.flag === "--plugin-dir-no-mcp" ? { skipMcpDiscovery: true } : {}),
        },
      ];
      return;
    case "settingSources":
      options.settingSources = listValue(value) as Options["settingSources"] & string[];
      return;
    case "mcpServers":
      options.mcpServers = { ...options.mcpServers, ...mcpServersOf(value) };
      return;
    case "strictMcpConfig":
      options.strictMcpConfig = true;
      return;
    case "additionalDirectories":
      options.additionalDirectories = [...(options.additionalDirectories ?? []), value];
      return;
    case "outputFormat":
      options.outputFormat = { type: "json_schema", schema: JSON.parse(value) as Record<string, unknown> };
      return;
    case "systemPrompt":
      options.systemPrompt =
        spec.flag === "--append-system-prompt"
          ? { type: "preset", preset: "claude_code", append: value }
          : value;
      return;
    case "maxBudgetUsd":
      options.maxBudgetUsd = Number(value);
      return;
    case "fallbackModel":
      options.fallbackModel = value;
      return;
    case "effort":
      options.effort = value as Options["effort"];
      return;
    case "maxThinkingTokens":
      options.maxThinkingTokens = Number(value);
      return;
    case "thinking":
      options.thinking = { type: value } as Options["thinking"] & object;
      return;
    case "agent":
      options.agent = value;
      return;
    case "betas":
      options.betas = [...(options.betas ?? []), ...listValue(value)];
      return;
    case "debug":
      options.debug = true;
      return;
    case "debugFile":
      options.debugFile = value;
      return;
    default:
      // A flag the table gives this door without saying what it sets here: said, not dropped.
      result.warnings.push(`${spec.flag} is accepted but not applied by cairn`);
  }
}

/** `--mcp-config`: inline JSON or a file, each `{"mcpServers": {…}}`. */
function mcpServersOf(value: string): Record<string, never> {
  const text = value.trimStart().startsWith("{") ? value : readCappedText(value);
  const parsed = JSON.parse(text) as { mcpServers?: Record<string, never> };
  return parsed.mcpServers ?? {};
}
