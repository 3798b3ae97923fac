import { readFileSync, statSync } from "node:fs";
import { resolveToolPath } from "./paths.js";
import type { ToolDeclaration, ToolDisplay, ToolDisplayKind } from "./types.js";

/**
 * How a call of `name` with `input` is shown: the tool's own display, completed from what it
 * declares (a kind from its effects' kind, locations from its paths); a tool that declares nothing
 * (an MCP tool without hints, a custom tool) is titled by its name. `live`: the call has not run.
 */
export function describeToolCall(
  declaration: ToolDeclaration | undefined,
  name: string,
  input: Record<string, unknown>,
  cwd: string,
  { live }: { live: boolean },
): ToolDisplay {
  const own = declaration?.display?.(input, cwd, { live }) ?? {};
  return {
    title: own.title ?? name,
    kind: own.kind ?? kindOf(declaration),
    locations: own.locations ?? locationsOf(declaration, input, cwd),
    ...(own.diff ? { diff: own.diff } : {}),
  };
}

function kindOf(declaration: ToolDeclaration | undefined): ToolDisplayKind {
  const kind = declaration?.effects?.kind;
  if (kind === "read" || kind === "edit" || kind === "execute") return kind;
  return declaration?.effects?.network ? "fetch" : "other";
}

function locationsOf(
  declaration: ToolDeclaration | undefined,
  input: Record<string, unknown>,
  cwd: string,
): ToolDisplay["locations"] {
  const declared = declaration?.effects?.paths?.(input, cwd);
  if (!declared || !Array.isArray(declared)) return [];
  return declared.map((access) => ({ path: resolveToolPath(cwd, access.path) }));
}

/** `text` quoted for a title, on one line. */
export function quoted(text: string): string {
  return JSON.stringify(text);
}

/** Files bigger than this are not read to show what a write replaces (the diff shows the new text only). */
const DIFF_READ_LIMIT = 1 << 20;

/** A file's text as it is now, for a diff; null for a new, big or unreadable file. */
export function currentText(file: string): string | null {
  try {
    const info = statSync(file);
    return info.isFile() && info.size <= DIFF_READ_LIMIT ? readFileSync(file, "utf8") : null;
  } catch {
    return null;
  }
}
