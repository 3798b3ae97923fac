import type { PlanEntry, ToolCall, ToolCallContent } from "@agentclientprotocol/sdk";
import { builtinTools } from "../tools/index.js";
import type { ToolDeclaration, ToolDisplay } from "../tools/types.js";

/**
 * How a tool call looks to an ACP client: the session's display of it (title, kind, files, diff —
 * declared by each tool, src/tools/display.ts) in ACP's fields. TodoWrite calls (the tool declaring
 * the `updateTodos` payload) become the session's plan instead.
 */
const DECLARATIONS = new Map<string, ToolDeclaration>(builtinTools().map((tool) => [tool.name, tool]));

/** The tool whose calls become the session's `plan` instead of tool calls. */
export function isPlanTool(name: string): boolean {
  return DECLARATIONS.get(name)?.payload === "updateTodos";
}

/** A call's display as ACP `tool_call` fields. */
export function toolCallFields(
  display: ToolDisplay,
): Pick<ToolCall, "title" | "kind" | "locations" | "content"> {
  return {
    title: display.title,
    kind: display.kind,
    locations: display.locations,
    content: display.diff ? [{ type: "diff", ...display.diff }] : [],
  };
}

/** What a finished call shows: its output as text (a command's in a code block). */
export function resultContent(kind: ToolDisplay["kind"], output: string): ToolCallContent[] {
  if (output === "") return [];
  const text = kind === "execute" ? `\`\`\`\n${output}\n\`\`\`` : output;
  return [{ type: "content", content: { type: "text", text } }];
}

/** A TodoWrite call's todos as ACP plan entries (cairn's todos have no priority: all `medium`). */
export function planEntries(input: Record<string, unknown>): PlanEntry[] {
  const todos = Array.isArray(input.todos) ? input.todos : [];
  return todos.flatMap((todo): PlanEntry[] => {
    const { content, status } = (todo ?? {}) as { content?: unknown; status?: unknown };
    if (typeof content !== "string") return [];
    const known = status === "in_progress" || status === "completed" ? status : "pending";
    return [{ content, status: known, priority: "medium" }];
  });
}
