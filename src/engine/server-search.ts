import type { ToolOutcome } from "../tools/types.js";
import type { AssistantBlockEvent, ToolEndEvent, ToolStartEvent } from "./events.js";
import type { AssistantContentBlock, WebSearchToolResultBlock } from "./messages.js";
import { WEB_SEARCH_TOOL } from "./server-tools.js";

/**
 * How the doors show a search the provider ran (docs/tools.md, "WebSearch"): as a WebSearch call
 * whose input is the search's and whose outcome lists the results, the same payload cairn's own
 * WebSearch tool gives (`backend: "provider"`). Its blocks themselves stay in the assistant message.
 */
export type ServerSearchCall = { toolUseId: string; input: { query: string } };

/** The call a `server_tool_use` web search block stands for; undefined for any other block. */
export function serverSearchCall(block: AssistantContentBlock): ServerSearchCall | undefined {
  if (block.type !== "server_tool_use" || block.name !== "web_search") return undefined;
  const query = typeof block.input.query === "string" ? block.input.query : "";
  return { toolUseId: block.id, input: { query } };
}

/** The outcome a `web_search_tool_result` block stands for, as a tool outcome; undefined for others. */
export function serverSearchOutcome(
  block: AssistantContentBlock,
  query: string,
): { toolUseId: string; outcome: ToolOutcome } | undefined {
  if (block.type !== "web_search_tool_result") return undefined;
  return { toolUseId: block.tool_use_id, outcome: searchOutcome(block, query) };
}

function searchOutcome(block: WebSearchToolResultBlock, query: string): ToolOutcome {
  const content = block.content;
  if (!Array.isArray(content))
    return {
      content: `The provider's web search failed: ${content.error_code}.`,
      isError: true,
      errorKind: "failed",
      durationMs: 0,
    };
  const results = content.map((result) => ({ title: result.title, url: result.url }));
  const lines = results.map((result, index) => `${index + 1}. [${result.title}](${result.url})`);
  return {
    content: [
      `Web search results for query: "${query}"`,
      "",
      lines.length ? lines.join("\n") : "No results.",
    ].join("\n"),
    data: { query, results, backend: "provider" },
    isError: false,
    durationMs: 0,
  };
}

/**
 * The provider's searches of a run as tool events, for a door that shows tool calls: the
 * `server_tool_use` block as a WebSearch `tool_start`, its result block as the `tool_end`. `at` is
 * the time the door stamps them with (a door that must be deterministic passes a stream time).
 */
export class ServerSearchEvents {
  private readonly queries = new Map<string, string>();

  of(event: AssistantBlockEvent, at: number): ToolStartEvent | ToolEndEvent | undefined {
    const call = serverSearchCall(event.block);
    if (call) {
      this.queries.set(call.toolUseId, call.input.query);
      const { toolUseId, input } = call;
      return { type: "tool_start", turn: event.turn, toolUseId, name: WEB_SEARCH_TOOL, input, startedAt: at };
    }
    if (event.block.type !== "web_search_tool_result") return undefined;
    const query = this.queries.get(event.block.tool_use_id) ?? "";
    this.queries.delete(event.block.tool_use_id);
    const found = serverSearchOutcome(event.block, query)!;
    return {
      type: "tool_end",
      turn: event.turn,
      toolUseId: found.toolUseId,
      name: WEB_SEARCH_TOOL,
      input: { query },
      outcome: found.outcome,
      endedAt: at,
    };
  }
}
