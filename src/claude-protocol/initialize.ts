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
  "agents",
  "forwardSubagentText",
]);

/** What an `initialize` request sets: the system prompt, structured output. */
export function initializeOptions(init: Record<string, unknown>): Options {
  const options: Options = {};
  const prompt = init.systemPrompt;
  // The SDK sends `[""]` when the program set no system prompt: an empty custom prompt, its default.
  if (Array.isArray(prompt))
    options.systemPrompt = prompt.filter((part) => typeof part === "string").join("\n\n");
  else if (typeof prompt === "string") options.systemPrompt = prompt;
  if (typeof init.appendSystemPrompt === "string")
    options.systemPrompt = { type: "preset", preset: "claude_code", append: init.appendSystemPrompt };
  // Subagents (docs/agents.md): checked like the option when the query starts.
  if (init.agents && typeof init.agents === "object") options.agents = init.agents as Options["agents"];
  if (typeof init.forwardSubagentText === "boolean") options.forwardSubagentText = init.forwardSubagentText;
  if (init.jsonSchema && typeof init.jsonSchema === "object")
    options.outputFormat = { type: "json_schema", schema: init.jsonSchema as Record<string, unknown> };
  const unapplied = Object.keys(init).filter((key) => !APPLIED.has(key) && init[key] !== undefined);
  if (unapplied.length > 0)
    process.stderr.write(`cairn: initialize fields not supported, ignored: ${unapplied.join(", ")}\n`);
  return options;
}

/** The `initialize` answer the SDKs require: commands, agents, output styles, models, account. */
export async function initializeResponse(q: Query): Promise<Record<string, unknown>> {
  const [commands, agents, models] = await Promise.all([
    q.supportedCommands(),
    q.supportedAgents(),
    q.supportedModels(),
  ]);
  return {
    commands,
    agents,
    output_style: "default",
    available_output_styles: ["default"],
    models,
    account: {},
    hooks_applied: true,
  };
}
