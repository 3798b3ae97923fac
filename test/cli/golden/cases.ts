import * as z from "zod";
import { httpError, reply, type StepInput } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define.js";
import type { Tool } from "../../../src/tools/types.js";

/**
 * The runs whose engine events are recorded into test/golden/<name>.events.ndjson (record.ts) and
 * projected into the golden outputs (golden.test.ts). Each case is a scripted model plus the files
 * of its workspace.
 */
export type GoldenCase = {
  name: string;
  prompt: string;
  files: Record<string, string>;
  chunkSize: number;
  steps: StepInput[];
  /** Tools added to the built-in ones (an MCP-like tool: the CLI shows it as `function`). */
  extraTools?: Tool[];
};

/** Stands for an MCP or SDK-defined tool, which has no `<kind>ToolCall` of its own (PM-26). */
const wordCount = defineTool({
  name: "mcp__notes__word_count",
  description: "Counts the words of a text",
  effects: { kind: "read", readOnly: true, network: false },
  input: z.object({ text: z.string() }),
  async run(input) {
    return { content: String(input.text.split(/\s+/).filter(Boolean).length) };
  },
});

const README = "# Project\n\nThis is a sample project.\nIt watches folders.\n";

export const GOLDEN_CASES: GoldenCase[] = [
  {
    // The example flow of the original document (cli-output-format.ja.txt, "シーケンスの例").
    name: "example-flow",
    prompt: "Read README.md and create a summary",
    files: { "README.md": README },
    chunkSize: 5,
    steps: [
      reply()
        .thinking("The user wants a summary; read the README first.")
        .text("I'll read the README.md file")
        .tool("Read", { file_path: "README.md" }, "toolu_vrtx_01NnjaR886UcE8whekg2MGJd"),
      reply()
        .text("Based on the README, I'll create a summary")
        .tool(
          "Write",
          { file_path: "summary.txt", content: "# README Summary\n\nThis project contains...\n" },
          "toolu_vrtx_01Q3VHVnWFSKygaRPT7WDxrv",
        ),
      reply().text("Done! I've created the summary in summary.txt"),
    ],
  },
  {
    name: "every-tool",
    prompt: "Tidy the project",
    files: { "notes.txt": "alpha\nbeta TODO\ngamma\n", "src.ts": "export const x = 1; // TODO\n" },
    chunkSize: 16,
    steps: [
      reply()
        .text("Planning first.")
        .tool(
          "TodoWrite",
          {
            todos: [
              { content: "Fix notes", status: "in_progress", activeForm: "Fixing notes" },
              { content: "Check TODOs", status: "pending", activeForm: "Checking TODOs" },
            ],
          },
          "toolu_todo",
        ),
      reply().tool("Edit", { file_path: "notes.txt", old_string: "beta", new_string: "BETA" }, "toolu_edit"),
      reply().tool("Bash", { command: "echo hello; echo oops >&2", description: "Say hello" }, "toolu_bash"),
      reply().tool("Bash", { command: "exit 3", timeout: 5000 }, "toolu_bash_fail"),
      reply().tool("Grep", { pattern: "TODO", output_mode: "content", "-n": true }, "toolu_grep"),
      reply().tool("Glob", { pattern: "*.ts" }, "toolu_glob"),
      reply().tool("LS", { path: ".", ignore: ["*.log"] }, "toolu_ls"),
      reply().tool("Read", { file_path: "missing.txt" }, "toolu_read_missing"),
      reply().tool("mcp__docs__search", { query: "cairn", limit: 3 }, "toolu_mcp"),
      reply().text("All done."),
    ],
  },
  {
    // Text that only byte-exact handling survives: one-character chunks, emoji, CJK, whitespace-only.
    name: "partial-unicode",
    prompt: "Say hello in several ways",
    files: { "a.txt": "a\n" },
    chunkSize: 1,
    steps: [
      reply().text("正在 🙂 look\n\n  ").tool("Read", { file_path: "a.txt" }, "toolu_read_a"),
      reply().text("  \t\ndone ✅ 👩‍💻\n"),
    ],
  },
  {
    name: "parallel-reads",
    prompt: "Compare the two files",
    files: { "one.txt": "1\n", "two.txt": "2\n2\n" },
    chunkSize: 8,
    steps: [
      reply()
        .text("Reading both.")
        .tool("Read", { file_path: "one.txt" }, "toolu_one")
        .tool("Read", { file_path: "two.txt" }, "toolu_two"),
      reply().text("They differ."),
    ],
  },
  {
    name: "custom-tool",
    prompt: "Count the words",
    files: {},
    chunkSize: 16,
    extraTools: [wordCount],
    steps: [
      reply().tool("mcp__notes__word_count", { text: "one two  three" }, "toolu_count"),
      reply().text("Three words."),
    ],
  },
  {
    // A provider failure after one tool: json prints nothing, stream-json ends without `result`.
    name: "provider-failure",
    prompt: "Read and then fail",
    files: { "a.txt": "a\n" },
    chunkSize: 16,
    steps: [
      reply().text("Reading.").tool("Read", { file_path: "a.txt" }, "toolu_read_a"),
      httpError(400, { message: "scripted failure" }),
    ],
  },
];
