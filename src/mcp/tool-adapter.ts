import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ValidateFunction } from "ajv";
import { DEFAULT_OUTPUT_LIMIT, truncateMiddle } from "../tools/define.js";
import type { Tool, ToolEffects, ToolOutcome } from "../tools/types.js";
import { nowMs } from "../util/clock.js";

/** An MCP tool as `tools/list` describes it. */
export type McpToolInfo = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    openWorldHint?: boolean;
    title?: string;
  };
};

/** How long one MCP tool call may take unless the server's config says otherwise. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 120_000;

/** `mcp__<server>__<tool>`: the name the model, the rules and the front ends use. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/**
 * What a call of this MCP tool may do, from the server's annotations: a `readOnlyHint` tool is a
 * read-only tool (allowed in plan mode, in parallel, without approval); every other tool is asked
 * about. Annotations are the server's own claims: a user who does not trust them denies the tool.
 */
function effectsOf(info: McpToolInfo): ToolEffects {
  const readOnly = info.annotations?.readOnlyHint === true;
  return { kind: "other", readOnly, network: info.annotations?.openWorldHint === true && !readOnly };
}

export type McpToolOptions = {
  server: string;
  client: Client;
  info: McpToolInfo;
  timeoutMs?: number;
  /** Compiles the input schema (ajv, loaded by the caller once). */
  compile(schema: Record<string, unknown>): ValidateFunction | undefined;
};

/** A cairn tool that calls one tool of a connected MCP server. */
export function mcpTool(options: McpToolOptions): Tool {
  const { server, client, info } = options;
  const name = mcpToolName(server, info.name);
  const validator = options.compile(info.inputSchema);
  return {
    name,
    description: info.description ?? `${info.name} (MCP server ${server})`,
    jsonSchema: info.inputSchema,
    effects: effectsOf(info),
    validate(rawInput) {
      const input = rawInput ?? {};
      if (typeof input !== "object" || Array.isArray(input))
        return { ok: false, message: `InputValidationError: ${name} takes an object.` };
      if (validator && !validator(input)) {
        const problems = (validator.errors ?? [])
          .map(
            (error) =>
              `The field \`${error.instancePath.slice(1).replaceAll("/", ".") || "(input)"}\`: ${error.message}.`,
          )
          .join(" ");
        return {
          ok: false,
          message: `InputValidationError: ${name} was called with invalid input. ${problems}`,
        };
      }
      return { ok: true, input: input as Record<string, unknown> };
    },
    async execute(input, ctx): Promise<ToolOutcome> {
      const started = nowMs();
      const elapsed = () => Math.round(nowMs() - started);
      try {
        const result = await client.callTool({ name: info.name, arguments: input }, undefined, {
          signal: ctx.signal,
          timeout: options.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
        });
        const content = truncateMiddle(contentText(result.content), DEFAULT_OUTPUT_LIMIT);
        const isError = result.isError === true;
        return {
          content,
          isError,
          ...(isError ? { errorKind: "failed" as const } : {}),
          data: {
            server,
            tool: info.name,
            content: result.content,
            structuredContent: result.structuredContent,
          },
          durationMs: elapsed(),
        };
      } catch (error) {
        if (ctx.signal.aborted)
          return {
            content: "The tool call was interrupted by the user.",
            isError: true,
            errorKind: "aborted",
            durationMs: elapsed(),
          };
        return {
          content: `Error: the MCP server ${server} failed on ${info.name}: ${(error as Error).message}`,
          isError: true,
          errorKind: "failed",
          durationMs: elapsed(),
        };
      }
    },
  };
}

/** MCP result content as the text the model reads: text joined, other content described. */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((block: Record<string, unknown>) => {
      switch (block?.type) {
        case "text":
          return String(block.text ?? "");
        case "image":
        case "audio":
          return `[${block.type} ${String(block.mimeType ?? "")}, ${Math.round((String(block.data ?? "").length * 3) / 4)} bytes]`;
        case "resource": {
          const resource = block.resource as Record<string, unknown> | undefined;
          if (typeof resource?.text === "string") return resource.text;
          return `[resource ${String(resource?.uri ?? "")}${resource?.mimeType ? ` (${String(resource.mimeType)})` : ""}]`;
        }
        case "resource_link":
          return `[resource link ${String(block.uri ?? "")}${block.name ? ` "${String(block.name)}"` : ""}]`;
        default:
          return JSON.stringify(block);
      }
    })
    .join("\n");
}
