import path from "node:path";
import picomatch from "picomatch";
import { isInside } from "./paths.js";
import type { PermissionRule, RuleBehavior, RuleTarget, ShellMatcher } from "./types.js";

/**
 * Permission rules in both spellings, parsed into one form (`RuleTarget`):
 *
 * | written                                   | means                                               |
 * |-------------------------------------------|-----------------------------------------------------|
 * | `Read`, `Bash`, `TodoWrite`, `MyTool`     | every call of that tool                             |
 * | `Bash(git status:*)`, `Bash(ls *)`        | commands starting with these words                  |
 * | `Bash(npm run test)`                      | exactly this command                                |
 * | `Bash(git * main)`                        | `*` matches anything (spaces included)              |
 * | `Shell(git)`, `Shell(curl:*)`             | (reference CLI) this command name, any arguments    |
 * | `Shell(npm:run *)`                        | (reference CLI) command name, then an argument glob |
 * | `Read(./src/**)`, `Read(src/**\/*.ts)`    | reading these paths (Read, Glob, Grep, LS, `< f`)   |
 * | `Edit(docs/**)`, `Write(package.json)`    | writing these paths (Write, Edit, `> f`)            |
 * | `mcp__server`, `mcp__server__*`           | every tool of that MCP server                       |
 * | `mcp__server__tool`, `Mcp(server:tool)`   | one MCP tool                                        |
 *
 * Path patterns: relative ones are relative to the workspace, `~/` is the home directory, `//x` is
 * the absolute `/x`. A single leading `/` is ambiguous between the two conventions (absolute for the
 * reference CLI, workspace-relative for the agent SDK): deny and ask rules take both readings, allow
 * rules only the absolute one. A pattern without a slash (`.env*`) matches at any depth for deny and
 * ask rules, at the workspace root only for allow rules. In short: deny reads a pattern broadly,
 * allow narrowly.
 */

export class RuleSyntaxError extends Error {
  constructor(
    readonly rule: string,
    reason: string,
  ) {
    super(`Invalid permission rule ${JSON.stringify(rule)}: ${reason}`);
    this.name = "RuleSyntaxError";
  }
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Rule tool names that mean "reading a path" and the tools they cover. */
const READ_RULE_TOOLS: Record<string, string[] | undefined> = {
  Read: undefined,
  Glob: ["Glob"],
  Grep: ["Grep"],
  LS: ["LS"],
};
/** Rule tool names that mean "writing a path". */
const WRITE_RULE_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
const SHELL_RULE_TOOLS = new Set(["Bash", "Shell"]);

/** Tools cairn has, and the rule names that mean them. */
export const CAIRN_RULE_TOOLS: readonly string[] = [
  ...Object.keys(READ_RULE_TOOLS),
  ...WRITE_RULE_TOOLS,
  ...SHELL_RULE_TOOLS,
  "TodoWrite",
  // Background shells (a TaskStop rule also covers its legacy names, and the reverse).
  "BashOutput",
  "TaskStop",
  "KillShell",
  "KillBash",
  "Mcp",
];
/** Tools of the reference CLI that cairn does not have (rules for them are reported as doing nothing). */
const FOREIGN_RULE_TOOLS = new Set([
  "WebFetch",
  "WebSearch",
  "Task",
  "Agent",
  "NotebookRead",
  "ExitPlanMode",
  "SlashCommand",
  "Skill",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
]);

/**
 * A rule naming a known tool in the wrong case (`bash(touch:*)`, `read`) is an error: tool names
 * are case-sensitive, so it would match nothing, and a deny rule that silently matches nothing is
 * the worst failure there is.
 */
function checkToolCase(text: string, tool: string): void {
  if (CAIRN_RULE_TOOLS.includes(tool) || FOREIGN_RULE_TOOLS.has(tool)) return;
  const meant = [...CAIRN_RULE_TOOLS, ...FOREIGN_RULE_TOOLS].find(
    (known) => known.toLowerCase() === tool.toLowerCase(),
  );
  if (meant)
    throw new RuleSyntaxError(
      text,
      `no tool is named ${tool} (tool names are case-sensitive): did you mean ${meant}?`,
    );
}

/**
 * One warning per rule that names no tool of this run: a tool cairn does not have (`WebFetch`), a
 * custom tool that is not there. MCP rules (`mcp__server__tool`) are left alone: the servers'
 * tools are only known once they start. `toolNames`: the run's other tools (custom, MCP).
 */
export function unknownToolWarnings(
  rules: readonly PermissionRule[],
  toolNames: readonly string[] = [],
): string[] {
  const warnings: string[] = [];
  for (const rule of rules) {
    const target = rule.target;
    if (target.kind !== "tool" && target.kind !== "opaque") continue;
    if (CAIRN_RULE_TOOLS.includes(target.tool) || toolNames.includes(target.tool)) continue;
    const why = FOREIGN_RULE_TOOLS.has(target.tool)
      ? `cairn has no ${target.tool} tool`
      : `no tool is named ${target.tool} (cairn's tools: ${CAIRN_RULE_TOOLS.filter((t) => t !== "Mcp").join(", ")}; MCP tools are mcp__server__tool)`;
    warnings.push(`permission rule ${rule.text} (${rule.source}) has no effect: ${why}`);
  }
  return warnings;
}

/** Parses one rule. Throws `RuleSyntaxError` for a malformed rule (a typo must not silently vanish). */
export function parseRule(text: string, behavior: RuleBehavior, source: string): PermissionRule {
  const trimmed = text.trim();
  if (trimmed === "") throw new RuleSyntaxError(text, "empty rule");
  const open = trimmed.indexOf("(");
  if (open === -1) {
    if (!TOOL_NAME.test(trimmed) && !/^mcp__[A-Za-z0-9_.-]+__\*$/.test(trimmed))
      throw new RuleSyntaxError(text, "not a tool name");
    if (!trimmed.startsWith("mcp__")) checkToolCase(text, trimmed);
    return { behavior, text: trimmed, source, target: bareTarget(trimmed) };
  }
  if (!trimmed.endsWith(")")) throw new RuleSyntaxError(text, "missing closing parenthesis");
  const tool = trimmed.slice(0, open);
  const content = trimmed.slice(open + 1, -1).trim();
  if (!TOOL_NAME.test(tool)) throw new RuleSyntaxError(text, `${JSON.stringify(tool)} is not a tool name`);
  checkToolCase(text, tool);
  return { behavior, text: trimmed, source, target: contentTarget(text, tool, content) };
}

/** Parses a list of rules of one behavior (config arrays, `allowedTools`). */
export function parseRules(
  texts: readonly string[],
  behavior: RuleBehavior,
  source: string,
): PermissionRule[] {
  return texts.map((text) => parseRule(text, behavior, source));
}

function bareTarget(name: string): RuleTarget {
  if (name.startsWith("mcp__")) {
    const rest = name.slice("mcp__".length);
    const split = rest.indexOf("__");
    if (split === -1) return { kind: "mcp", server: rest };
    const tool = rest.slice(split + 2);
    return tool === "*" || tool === ""
      ? { kind: "mcp", server: rest.slice(0, split) }
      : { kind: "mcp", server: rest.slice(0, split), tool };
  }
  if (SHELL_RULE_TOOLS.has(name)) return { kind: "shell", matcher: { kind: "any" } };
  return { kind: "tool", tool: name };
}

function contentTarget(text: string, tool: string, content: string): RuleTarget {
  if (tool === "Bash") return { kind: "shell", matcher: parseBashContent(text, content) };
  if (tool === "Shell") return { kind: "shell", matcher: parseShellContent(text, content) };
  if (tool in READ_RULE_TOOLS) {
    if (content === "") return bareTarget(tool);
    const tools = READ_RULE_TOOLS[tool];
    return { kind: "path", access: "read", pattern: content, ...(tools ? { tools } : {}) };
  }
  if (WRITE_RULE_TOOLS.has(tool)) {
    if (content === "") return bareTarget(tool);
    return { kind: "path", access: "write", pattern: content };
  }
  if (tool === "Mcp") {
    const [server, mcpTool] = content.split(":");
    if (!server) throw new RuleSyntaxError(text, "Mcp(server:tool) needs a server name");
    return mcpTool && mcpTool !== "*" ? { kind: "mcp", server, tool: mcpTool } : { kind: "mcp", server };
  }
  if (content === "" || content === "*") return bareTarget(tool);
  return { kind: "opaque", tool, content };
}

/** The agent-SDK spelling: `git status:*` (prefix), `ls *` (prefix), `npm run test` (exact), `a * b` (glob). */
function parseBashContent(text: string, content: string): ShellMatcher {
  if (content === "" || content === "*" || content === ":*") return { kind: "any" };
  if (content.endsWith(":*")) return prefixMatcher(text, content.slice(0, -2));
  if (content.endsWith(" *") && !content.slice(0, -2).includes("*"))
    return prefixMatcher(text, content.slice(0, -2));
  if (content.includes("*")) return globMatcher(content, ".*");
  return { kind: "exact", words: splitWords(text, content) };
}

/** The reference CLI's spelling: `git` (command name), `curl:*`, `npm:run *` (name, then an argument glob). */
function parseShellContent(text: string, content: string): ShellMatcher {
  if (content === "" || content === "*") return { kind: "any" };
  const colon = content.indexOf(":");
  const base = (colon === -1 ? content : content.slice(0, colon)).trim();
  const args = colon === -1 ? "*" : content.slice(colon + 1).trim();
  if (base === "") throw new RuleSyntaxError(text, "missing command name");
  if (base.includes("*")) {
    const baseGlob = globSource(base, "[^ ]*");
    const argsGlob = args === "*" ? "(?: .*)?" : ` ${globSource(args, ".*")}`;
    return { kind: "glob", pattern: `${base} ${args}`, regex: new RegExp(`^${baseGlob}${argsGlob}$`, "s") };
  }
  if (args === "*" || args === "") return prefixMatcher(text, base);
  if (!args.includes("*")) return { kind: "exact", words: splitWords(text, `${base} ${args}`) };
  return globMatcher(`${base} ${args}`, ".*");
}

function prefixMatcher(text: string, words: string): ShellMatcher {
  const split = splitWords(text, words);
  if (split.length === 0) return { kind: "any" };
  return { kind: "prefix", words: split };
}

function globMatcher(pattern: string, star: string): ShellMatcher {
  const normalized = pattern.trim().replace(/\s+/g, " ");
  return { kind: "glob", pattern: normalized, regex: new RegExp(`^${globSource(normalized, star)}$`, "s") };
}

function globSource(pattern: string, star: string): string {
  return pattern
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(star);
}

/** Splits rule words on whitespace; single or double quotes group words (no escapes inside). */
function splitWords(text: string, content: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | undefined;
  let inWord = false;
  for (const char of content) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote) throw new RuleSyntaxError(text, "unterminated quote");
  if (inWord) words.push(current);
  return words;
}

/**
 * Splits a flag value holding several rules (`--allowedTools "Read,Bash(git log:*) Edit"`) on commas
 * and spaces outside parentheses.
 */
export function splitRuleList(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth += 1;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current.trim()) out.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** A rule written back in the agent-SDK spelling (for suggestions and messages). */
export function formatShellPrefixRule(words: readonly string[]): string {
  return `Bash(${words.join(" ")}:*)`;
}

// ---------------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------------

/** A word of a parsed command: its value when static, undefined when computed at run time. */
export type MatchWord = { value?: string };

/**
 * Whether a shell matcher matches a command's words. `"maybe"` when a word the match depends on is
 * computed at run time (`$X`, `$(...)`): such a command can never be allowed by the rule, and is
 * asked about (not silently let through) when the rule denies.
 */
export function matchShell(matcher: ShellMatcher, words: readonly MatchWord[]): boolean | "maybe" {
  switch (matcher.kind) {
    case "any":
      return true;
    case "prefix":
    case "exact": {
      const dynamic = words.some((word) => word.value === undefined);
      if (matcher.kind === "exact" && !dynamic && words.length !== matcher.words.length) return false;
      if (!dynamic && words.length < matcher.words.length) return false;
      let maybe = dynamic && matcher.kind === "exact";
      for (let i = 0; i < matcher.words.length; i += 1) {
        const word = words[i];
        if (word === undefined) return maybe ? "maybe" : false;
        if (word.value === undefined) {
          maybe = true;
          continue;
        }
        if (word.value !== matcher.words[i]) return false;
      }
      return maybe ? "maybe" : true;
    }
    case "glob":
      if (words.some((word) => word.value === undefined)) return "maybe";
      return matcher.regex.test(words.map((word) => word.value).join(" "));
  }
}

export type PathRuleContext = { workspace: string; home: string };

/** One reading of a path pattern: paths under `base` whose relative form matches `glob`. */
type PatternReading = { base: string; glob: string };

export type CompiledPathRule = {
  rule: PermissionRule;
  access: "read" | "write";
  tools?: string[];
  /** Allow rules: the narrow reading. */
  narrow: (absolute: string) => boolean;
  /** Deny and ask rules: the broad reading. */
  broad: (absolute: string) => boolean;
};

export function compilePathRule(rule: PermissionRule, context: PathRuleContext): CompiledPathRule {
  if (rule.target.kind !== "path") throw new Error(`not a path rule: ${rule.text}`);
  const { narrow, broad } = pathReadings(rule.target.pattern, context);
  return {
    rule,
    access: rule.target.access,
    ...(rule.target.tools ? { tools: rule.target.tools } : {}),
    narrow: readingsMatcher(narrow),
    broad: readingsMatcher(broad),
  };
}

function pathReadings(
  raw: string,
  { workspace, home }: PathRuleContext,
): { narrow: PatternReading[]; broad: PatternReading[] } {
  let pattern = raw;
  while (pattern.startsWith("./")) pattern = pattern.slice(2);
  let directory = false;
  if (pattern.length > 1 && pattern.endsWith("/")) {
    directory = true;
    pattern = pattern.replace(/\/+$/, "");
  }
  const finish = (readings: PatternReading[], children: boolean): PatternReading[] => {
    const out: PatternReading[] = [];
    for (const reading of readings) {
      if (!directory) out.push(reading);
      if (directory || (children && !reading.glob.endsWith("**")))
        out.push({ base: reading.base, glob: reading.glob === "" ? "**" : `${reading.glob}/**` });
    }
    return out;
  };
  let narrow: PatternReading[];
  let broad: PatternReading[];
  if (pattern.startsWith("//")) {
    narrow = broad = [{ base: "/", glob: pattern.replace(/^\/+/, "") }];
  } else if (pattern === "~" || pattern.startsWith("~/")) {
    narrow = broad = [{ base: home, glob: pattern.slice(2) }];
  } else if (pattern.startsWith("/")) {
    const absolute = { base: "/", glob: pattern.slice(1) };
    narrow = [absolute];
    broad = [absolute, { base: workspace, glob: pattern.slice(1) }];
  } else if (pattern === "" || pattern === ".") {
    narrow = broad = [{ base: workspace, glob: "" }];
  } else if (pattern.includes("/")) {
    narrow = broad = [{ base: workspace, glob: pattern }];
  } else {
    narrow = [{ base: workspace, glob: pattern }];
    broad = [
      { base: workspace, glob: pattern },
      { base: workspace, glob: `**/${pattern}` },
    ];
  }
  return { narrow: finish(narrow, false), broad: finish(broad, true) };
}

function readingsMatcher(readings: PatternReading[]): (absolute: string) => boolean {
  const compiled = readings.map((reading) => ({
    base: reading.base,
    glob: reading.glob,
    test: reading.glob === "" ? undefined : picomatch(reading.glob, { dot: true }),
  }));
  return (absolute) =>
    compiled.some(({ base, glob, test }) => {
      if (!isInside(base, absolute)) return false;
      const rel = path.relative(base, absolute).split(path.sep).join("/");
      if (rel === "") return glob === "" || glob === "**";
      return glob !== "" && test!(rel);
    });
}
