import type { SDKControlInitializeResponse } from "../sdk/control-types.js";
import type { Options } from "../sdk/options.js";
import type { Query } from "../sdk/query.js";

/** `initialize` fields cairn applies (the others are named once on stderr). */
const APPLIED = new Set([
  "subtype",
  "systemPrompt",
  "appendSystemPrompt",
  "jsonSchema",
  "hooks",
  "sdkMcpServers",
  "sdkMcpServerManifests",
  "sdkMcpServerConfigs",
  "title",
  "skills",
  "plugins",
  "agents",
  "forwardSubagentText",
  "mcpServers",
]);

/** What an `initialize` request sets: the system prompt, structured output, skills, plugins, agents, title. */
export function initializeOptions(init: Record<string, unknown>): Options {
  const options: Options = {};
  const prompt = init.systemPrompt;
  // The SDK sends `[""]` when the program set no system prompt: an empty custom prompt, its default.
  if (Array.isArray(prompt))
    options.systemPrompt = prompt.filter((part) => typeof part === "string").join("\n\n");
  else if (typeof prompt === "string") options.systemPrompt = prompt;
  if (typeof init.appendSystemPrompt === "string")
    options.systemPrompt = { type: "preset", preset: "claude_code", append: init.appendSystemPrompt };
  // The SDK sends its `skills` and (with `pluginDelivery: "initialize"`) `plugins` options here.
  if (Array.isArray(init.skills) || init.skills === "all")
    options.skills = init.skills as Options["skills"] & {};
  if (Array.isArray(init.plugins)) options.plugins = init.plugins as Options["plugins"] & {};
  // Subagents (docs/agents.md): checked like the option when the query starts.
  if (init.agents && typeof init.agents === "object") options.agents = init.agents as Options["agents"];
  if (typeof init.forwardSubagentText === "boolean") options.forwardSubagentText = init.forwardSubagentText;
  if (typeof init.title === "string") options.title = init.title;
  // The SDK's process MCP servers (stdio, http, sse) with `mcpServersDelivery: "initialize"`, its
  // default: the same configs `--mcp-config` takes (its in-process ones come as `sdkMcpServers`).
  if (init.mcpServers && typeof init.mcpServers === "object" && !Array.isArray(init.mcpServers))
    options.mcpServers = init.mcpServers as Options["mcpServers"];
  if (init.jsonSchema && typeof init.jsonSchema === "object")
    options.outputFormat = { type: "json_schema", schema: init.jsonSchema as Record<string, unknown> };
  const unapplied = Object.keys(init).filter((key) => !APPLIED.has(key) && init[key] !== undefined);
  if (unapplied.length > 0)
    process.stderr.write(`cairn: initialize fields not supported, ignored: ${unapplied.join(", ")}\n`);
  return options;
}

/**
 * The `initialize` answer the SDKs require: the query's own (commands, agents, output styles, models,
 * account), and `mcp_servers_applied` when the request carried MCP servers (the SDK refuses to go on
 * without it).
 */
export async function initializeResponse(
  q: Query,
  init: Record<string, unknown>,
): Promise<SDKControlInitializeResponse> {
  const result = await q.initializationResult();
  return init.mcpServers === undefined ? result : { ...result, mcp_servers_applied: true };
}

/**
 * What cairn says on stderr when `initialize` failed. The session ends there (exit 1): a prompt run
 * without what `initialize` asked for would run without the program's hooks (its safety checks),
 * system prompt and MCP servers. The TypeScript SDK (0.3.333) does not stop at the error answer: it
 * writes the prompt anyway, so only cairn can refuse it.
 */
export function initializeFailure(message: string): string {
  const reason = message.replace(/\.$/, "");
  return `cairn: initialize failed: ${reason}; the session ends (no prompt runs without the hooks, system prompt and MCP servers initialize asked for)\n`;
}
