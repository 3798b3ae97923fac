/**
 * Programs from the public agent-SDK docs (examples/sdk/docs/, each with its source), unchanged but
 * for the import: each runs as a separate Node process against the scripted model server with only
 * the environment set, and does what the docs say it does. The last test compiles every program
 * of the convention kept in this repository under `tsc --strict` against cairn's published
 * declarations (dist/index.d.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { globSync } from "tinyglobby";
import { afterEach, describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import {
  cairnHome,
  cleanUp,
  compileAgainstDeclarations,
  envFor,
  examplePath,
  fixturePath,
  REPO,
  runProgram,
  semanticBody,
  startServer,
  workspace,
} from "./helpers.js";

afterEach(cleanUp);

const docs = (name: string) => examplePath(`docs/${name}.ts`);
const UTILS = "def divide(a, b):\n    return a / b\n";
const FIXED =
  'def divide(a, b):\n    if b == 0:\n        raise ValueError("b must not be 0")\n    return a / b\n';
const fixEdit = {
  file_path: "utils.py",
  old_string: "    return a / b\n",
  new_string: '    if b == 0:\n        raise ValueError("b must not be 0")\n    return a / b\n',
};

/** Runs a docs program in `cwd` against a server scripted with `steps`; it must exit 0 with nothing on stderr. */
async function run(name: string, steps: Parameters<typeof startServer>[0], cwd = workspace()) {
  const server = await startServer(steps);
  const program = await runProgram(docs(name), { cwd, env: envFor(server) });
  expect(program.stderr).toBe("");
  expect(program.code).toBe(0);
  return { server, cwd, stdout: program.stdout };
}

/** What the model was sent in request `index`, as one string (to look for earlier turns). */
const sent = (server: Awaited<ReturnType<typeof startServer>>, index: number) =>
  JSON.stringify(semanticBody(server.requests[index]!.body));

describe("the agent-SDK docs' programs run on cairn with only the import changed", () => {
  test("quickstart: the agent reads and fixes utils.py, printing its text, its tools and Done", async () => {
    const { stdout, cwd } = await run(
      "quickstart-fix-bugs",
      [
        reply().text("Let me find the code.").tool("Glob", { pattern: "*.py" }),
        reply().tool("Read", { file_path: "utils.py" }),
        reply().tool("Edit", fixEdit),
        reply().text("Fixed the division by zero."),
      ],
      workspace({ "utils.py": UTILS }),
    );
    expect(stdout).toBe(
      "Let me find the code.\nTool: Glob\nTool: Read\nTool: Edit\nFixed the division by zero.\nDone: success\n",
    );
    expect(readFileSync(join(cwd, "utils.py"), "utf8")).toBe(FIXED);
  });

  test("sessions, continue: the second query carries the first one's conversation", async () => {
    const { stdout, server } = await run("sessions-continue", [
      reply().text("The auth module checks passwords."),
      reply().text("Refactored to JWT."),
    ]);
    expect(stdout).toBe("The auth module checks passwords.\nRefactored to JWT.\n");
    expect(sent(server, 1)).toContain("Analyze the auth module");
    expect(sent(server, 1)).toContain("The auth module checks passwords.");
  });

  test("sessions, capture the id: the result's session_id names the transcript written", async () => {
    const { stdout } = await run("sessions-capture-id", [reply().text("Use bcrypt.")]);
    const id = /^Session ID: (\S+)$/m.exec(stdout)?.[1];
    expect(stdout).toBe(`Use bcrypt.\nSession ID: ${id}\n`);
    expect(globSync(`sessions/*/${id}.jsonl`, { cwd: cairnHome() })).toHaveLength(1);
  });

  test("overview, hooks: every Edit and Write is logged to audit.log by the PostToolUse callback", async () => {
    const { stdout, cwd } = await run(
      "overview-hooks-audit-log",
      [
        reply().tool("Edit", fixEdit),
        reply().tool("Write", { file_path: "helpers.py", content: "# helpers\n" }),
        reply().tool("Read", { file_path: "utils.py" }),
        reply().text("Refactored."),
      ],
      workspace({ "utils.py": UTILS }),
    );
    expect(stdout).toBe("Refactored.\n");
    const log = readFileSync(join(cwd, "audit.log"), "utf8").trimEnd().split("\n");
    expect(log).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\S+Z: modified utils.py$/),
      expect.stringMatching(/: modified helpers.py$/),
    ]);
  });

  test("overview, sessions: the id from system/init resumes the conversation", async () => {
    const { stdout, server } = await run(
      "overview-sessions-resume",
      [
        reply().tool("Read", { file_path: "auth.py" }),
        reply().text("It defines login()."),
        reply().tool("Grep", { pattern: "login", output_mode: "files_with_matches" }),
        reply().text("login() is called from app.py."),
      ],
      workspace({ "auth.py": "def login(): ...\n", "app.py": "from auth import login\nlogin()\n" }),
    );
    expect(stdout).toBe("login() is called from app.py.\n");
    expect(sent(server, 2)).toContain("Read the authentication module");
    expect(sent(server, 2)).toContain("def login()");
  });

  test('permissions, mode at query time: "default" without a callback refuses the edit', async () => {
    const { stdout, cwd, server } = await run("permissions-mode-at-query", [
      reply().tool("Write", { file_path: "refactored.py", content: "x = 1\n" }),
      reply().text("I was not allowed to write the file."),
    ]);
    expect(stdout).toBe("I was not allowed to write the file.\n");
    expect(readdirSync(cwd)).toEqual([]);
    expect(sent(server, 1)).toMatch(/approval|permission/i);
  });

  test("permissions, mode during streaming: setPermissionMode('acceptEdits') before iterating lets the edit run", async () => {
    const { stdout, cwd } = await run("permissions-mode-during-streaming", [
      reply().tool("Write", { file_path: "refactored.py", content: "x = 1\n" }),
      reply().text("Refactored."),
    ]);
    expect(stdout).toBe("Refactored.\n");
    expect(readFileSync(join(cwd, "refactored.py"), "utf8")).toBe("x = 1\n");
  });

  test("structured outputs: the validated object is in result.structured_output", async () => {
    const { stdout } = await run("structured-outputs-json-schema", [
      reply().tool("StructuredOutput", {
        company_name: "Anthropic",
        founded_year: 2021,
        headquarters: "San Francisco, CA",
      }),
    ]);
    expect(stdout).toBe(
      "{\n  company_name: 'Anthropic',\n  founded_year: 2021,\n  headquarters: 'San Francisco, CA'\n}\n",
    );
  });

  test("cost tracking, per step: blocks of one model call share its id and are counted once", async () => {
    const { stdout } = await run("cost-tracking-per-step", [
      reply()
        .text("Looking around.")
        .tool("Glob", { pattern: "*" })
        .usage({ input_tokens: 100, output_tokens: 20 }),
      reply().text("An empty project.").usage({ input_tokens: 150, output_tokens: 10 }),
    ]);
    expect(stdout).toMatch(/^Steps: 2\nInput tokens: 250\nOutput tokens: \d+\n$/);
  });

  test("cost tracking, per model: result.modelUsage lists the model with its cost and tokens", async () => {
    const { stdout } = await run("cost-tracking-per-model", [
      reply()
        .text("A summary.")
        .usage({ input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 50 }),
    ]);
    expect(stdout).toMatch(
      /^claude-\S+: \$0\.\d{4}\n {2}Input tokens: 1000\n {2}Output tokens: 100\n {2}Cache read: 50\n {2}Cache creation: 0\n$/,
    );
  });

  test("stop reasons: maxTurns 3 ends with error_max_turns and the last stop reason", async () => {
    const glob = () => reply().tool("Glob", { pattern: "**/*" });
    const { stdout, server } = await run("stop-reasons-max-turns", [
      glob(),
      glob(),
      glob(),
      reply().text("never"),
    ]);
    expect(stdout).toBe("Hit turn limit. Last stop reason: tool_use\n");
    expect(server.requests).toHaveLength(3);
  });

  test("system prompt, preset with append: the addition reaches the model after cairn's prompt", async () => {
    const { stdout, server } = await run("system-prompt-preset-append", [
      reply().text("def fib(n: int) -> int: ..."),
    ]);
    expect(stdout).toBe("[ { type: 'text', text: 'def fib(n: int) -> int: ...' } ]\n");
    const system = semanticBody<{ system: string }>(server.requests[0]!.body).system;
    expect(system).toMatch(/\S[\s\S]*Always include detailed docstrings and type hints in Python code\.$/);
  });

  test("single message input: a one-shot query, then continue: true in the same directory", async () => {
    const { stdout, server } = await run("single-message-input", [
      reply().text("Passwords are checked in auth.py."),
      reply().text("Roles are checked in roles.py."),
    ]);
    expect(stdout).toBe("Passwords are checked in auth.py.\nRoles are checked in roles.py.\n");
    expect(sent(server, 1)).toContain("Explain the authentication flow");
  });
});

/** The programs of the convention in this repository: the docs', the custom tools' and the hooks'. */
function conventionPrograms(): string[] {
  const dir = join(REPO, "examples/sdk/docs");
  return [
    ...readdirSync(dir).map((name) => join(dir, name)),
    ...["custom-tools-annotations.ts", "custom-tools-converter.ts", "custom-tools-fetch-data.ts"].map(
      examplePath,
    ),
    ...[
      "hooks-add-context.ts",
      "hooks-log-tool-calls.ts",
      "hooks-protect-env.ts",
      "typed-imports.ts",
      "typed-convention-surface.ts",
    ].map(fixturePath),
    ...["list-files.ts", "stream-text.ts", "streaming-ui.ts", "subagents-resume.ts"].map(examplePath),
  ];
}

/**
 * Where the reference's declarations reject a docs program too (its result union has no `result`
 * on the error variant), cairn's must say the same: these errors are expected, nothing else.
 */
const SAME_AS_REFERENCE: Record<string, string[]> = {
  "single-message-input.ts": [
    "TS2339 Property 'result' does not exist on type 'SDKResultMessage'.",
    "TS2339 Property 'result' does not exist on type 'SDKResultMessage'.",
  ],
  // `"message" in message` keeps `system`/`permission_denied`, whose `message` is a string.
  "subagents-resume.ts": [
    "TS2339 Property 'content' does not exist on type 'string | SDKAPIAssistantMessage | { role: \"user\"; content: string | SDKUserContentBlock[]; }'.",
  ],
};

test("the convention's programs type-check under tsc --strict against cairn's declarations (dist/index.d.ts)", async () => {
  const files = conventionPrograms();
  expect(files.length).toBeGreaterThanOrEqual(23);
  const { ts, diagnostics } = await compileAgainstDeclarations(files);
  const found: Record<string, string[]> = {};
  for (const diagnostic of diagnostics) {
    const file = diagnostic.file ? diagnostic.file.fileName.split("/").at(-1)! : "(global)";
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").split("\n")[0];
    found[file] = [...(found[file] ?? []), `TS${diagnostic.code} ${text}`];
  }
  expect(found).toEqual(SAME_AS_REFERENCE);
}, 120_000);
