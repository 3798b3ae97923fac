import { printable, truncate } from "./text-width.js";

/** At most this many arguments are listed (the rest counted), each value cut to this many columns. */
const MAX_ARGUMENTS = 20;
const MAX_VALUE_WIDTH = 400;

/**
 * What an MCP tool call will do, for its permission question: the server and the tool (its name,
 * `mcp__<server>__<tool>`, says both), then each argument the model passes as `name: JSON value`.
 * A built-in tool's title says what it does (the command, the file); an MCP tool's title is only its
 * name, so without its arguments the user could not tell what they allow. Undefined for other tools.
 */
export function mcpCallRows(toolName: string, input: Record<string, unknown>): string[] | undefined {
  if (!toolName.startsWith("mcp__")) return undefined;
  const rest = toolName.slice("mcp__".length);
  const split = rest.indexOf("__");
  const [server, tool] = split > 0 ? [rest.slice(0, split), rest.slice(split + 2)] : [rest, rest];
  const entries = Object.entries(input);
  const rows = [printable(`MCP tool ${tool} of the server ${server}, with ${describeCount(entries.length)}`)];
  for (const [name, value] of entries.slice(0, MAX_ARGUMENTS))
    rows.push(
      `  ${printable(truncate(`${name}: ${JSON.stringify(value) ?? String(value)}`, MAX_VALUE_WIDTH))}`,
    );
  if (entries.length > MAX_ARGUMENTS) rows.push(`  … ${entries.length - MAX_ARGUMENTS} more arguments`);
  return rows;
}

function describeCount(count: number): string {
  return count === 0 ? "no arguments" : count === 1 ? "1 argument:" : `${count} arguments:`;
}
