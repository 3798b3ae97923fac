import { readFileSync, statSync } from "node:fs";
import type {
  ToolKind as AcpToolKind,
  PlanEntry,
  ToolCallContent,
  ToolCallLocation,
} from "@agentclientprotocol/sdk";
import { builtinTools } from "../tools/index.js";
import { resolveToolPath } from "../tools/paths.js";
import type { ToolDeclaration } from "../tools/types.js";

/**
 * How a tool call looks to an ACP client: kind, title, locations and diff content, all derived
 * from the tool's declared effects and payload shape (src/tools/types.ts), never from its name.
 * Tools without a declaration (MCP tools) are `other`, titled by their name.
 */
const DECLARATIONS = new Map<string, ToolDeclaration>(builtinTools().map((tool) => [tool.name, tool]));

/** The tool whose calls become the session's `plan` instead of tool calls. */
export function isPlanTool(name: string): boolean {
  return DECLARATIONS.get(name)?.payload === "updateTodos";
}

export function toolKind(name: string): AcpToolKind {
  const declaration = DECLARATIONS.get(name);
  switch (declaration?.payload) {
    case "read":
      return "read";
    case "write":
    case "edit":
      return "edit";
    case "shell":
      return "execute";
    case "grep":
    case "glob":
    case "ls":
      return "search";
    case "updateTodos":
      return "think";
  }
  const kind = declaration?.effects?.kind;
  return kind === "read" || kind === "edit" || kind === "execute" ? kind : "other";
}

export function toolTitle(name: string, input: Record<string, unknown>): string {
  const text = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : "");
  switch (DECLARATIONS.get(name)?.payload) {
    case "read":
      return `Read ${text("file_path")}${typeof input.offset === "number" ? ` (from line ${input.offset})` : ""}`;
    case "write":
      return `Write ${text("file_path")}`;
    case "edit":
      return `Edit ${text("file_path")}`;
    case "shell":
      return `\`${text("command")}\``;
    case "grep":
      return `grep ${JSON.stringify(text("pattern"))}${text("path") ? ` in ${text("path")}` : ""}`;
    case "glob":
      return `Find ${text("pattern")}${text("path") ? ` in ${text("path")}` : ""}`;
    case "ls":
      return `List ${text("path")}`;
    default:
      return name;
  }
}

/** The files a call touches, absolute (ACP requires absolute paths), with the first line of a ranged Read. */
export function toolLocations(name: string, input: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const declared = DECLARATIONS.get(name)?.effects?.paths?.(input, cwd);
  if (!declared || !Array.isArray(declared)) return [];
  const line = typeof input.offset === "number" ? { line: input.offset } : {};
  return declared.map((access) => ({ path: resolveToolPath(cwd, access.path), ...line }));
}

/** Files bigger than this are not read to show what a Write replaces (the diff shows the new text only). */
const DIFF_READ_LIMIT = 1 << 20;

/**
 * The diff of a Write or Edit call, known before it runs: an Edit's replaced and new snippets, a
 * Write's current file content (when it exists, is small and `readBefore`) and its new content.
 */
export function editDiff(
  name: string,
  input: Record<string, unknown>,
  cwd: string,
  { readBefore }: { readBefore: boolean },
): ToolCallContent[] {
  const payload = DECLARATIONS.get(name)?.payload;
  if ((payload !== "write" && payload !== "edit") || typeof input.file_path !== "string") return [];
  const path = resolveToolPath(cwd, input.file_path);
  if (payload === "edit") {
    const oldText = typeof input.old_string === "string" && input.old_string !== "" ? input.old_string : null;
    return [{ type: "diff", path, oldText, newText: String(input.new_string ?? "") }];
  }
  return [
    {
      type: "diff",
      path,
      oldText: readBefore ? currentText(path) : null,
      newText: String(input.content ?? ""),
    },
  ];
}

function currentText(path: string): string | null {
  try {
    const info = statSync(path);
    return info.isFile() && info.size <= DIFF_READ_LIMIT ? readFileSync(path, "utf8") : null;
  } catch {
    return null; // a new file
  }
}

/** What a finished call shows: its output as text (a shell's in a code block). */
export function resultContent(name: string, output: string): ToolCallContent[] {
  if (output === "") return [];
  const text = toolKind(name) === "execute" ? `\`\`\`\n${output}\n\`\`\`` : output;
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
