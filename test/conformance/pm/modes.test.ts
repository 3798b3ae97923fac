import { describe, expect, test } from "vitest";
import { reply } from "../../../src/testing/index.js";
import {
  cliCommand,
  hasScript,
  labels,
  MODEL,
  ofType,
  parseLines,
  runCli,
  runInTerminal,
  serverEnv,
  startServer,
  textOf,
  workspace,
} from "./helpers.js";

/** Print mode, output format selection, and the NDJSON framing rules (PM-1…PM-6). */
describe("print-mode conformance: modes and framing", () => {
  test("PM-1 -p runs one prompt headless and exits; --output-format selects text (default), json or stream-json", async () => {
    const answer = () => [reply().text("Hello there.")];

    const text = await runCli({ steps: answer() });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("Hello there.\n");
    expect(text.server.requests).toHaveLength(1); // one prompt, one model call, then exit

    const json = await runCli({ steps: answer(), args: ["--output-format", "json"] });
    expect(json.code).toBe(0);
    expect(labels(json.events)).toEqual(["result/success"]);

    const stream = await runCli({ steps: answer(), args: ["--output-format", "stream-json"] });
    expect(stream.code).toBe(0);
    expect(labels(stream.events)).toEqual(["system/init", "user", "assistant", "result/success"]);
  });

  test("PM-2 print mode is inferred when stdout is not a TTY (no -p)", async () => {
    const run = await runCli({
      steps: [reply().text("Inferred.")],
      rawArgs: ["Say something", "--model", MODEL, "--output-format", "json"],
    });
    expect(run.code).toBe(0);
    expect(run.events).toHaveLength(1);
    expect(run.events[0]).toMatchObject({ type: "result", result: "Inferred." });
  });

  test("PM-2 print mode is inferred when the prompt arrives on piped stdin (no -p, no argument)", async () => {
    const run = await runCli({
      steps: [reply().text("From stdin.")],
      rawArgs: ["--model", MODEL, "--output-format", "stream-json"],
      stdin: "What is on stdin?\n",
    });
    expect(run.code).toBe(0);
    expect(textOf(ofType(run.events, "user")[0]!)).toBe("What is on stdin?");
    expect(run.events.at(-1)).toMatchObject({ type: "result", result: "From stdin." });
  });

  // A terminal needs a pseudo-terminal: `script` (util-linux) provides one. Where it is missing the
  // TTY half of PM-2 cannot be exercised; src/cli/mode.ts's isPrintMode is then covered by
  // test/cli/mode.test.ts only.
  describe.skipIf(!hasScript())("PM-2 at a terminal", () => {
    test("PM-2 -p at a terminal is print mode, and --output-format takes effect", async () => {
      const server = await startServer([reply().text("At a terminal.")]);
      const dir = workspace();
      const run = await runInTerminal(cliCommand(["-p", "Hi", "--model", MODEL, "--output-format", "json"]), {
        cwd: dir,
        env: serverEnv(server),
      });
      expect(run.code).toBe(0);
      expect(parseLines(run.terminal)[0]).toMatchObject({ type: "result", result: "At a terminal." });
    });

    test("PM-2 a prompt piped on stdin infers print mode even with stdout at a terminal", async () => {
      const server = await startServer([reply().text("Piped.")]);
      const dir = workspace();
      const run = await runInTerminal(
        `printf 'Hi there' | ${cliCommand(["--model", MODEL, "--output-format", "json"])}`,
        {
          cwd: dir,
          env: serverEnv(server),
        },
      );
      expect(run.code).toBe(0);
      expect(parseLines(run.terminal)[0]).toMatchObject({ type: "result", result: "Piped." });
    });
  });

  test("PM-3 thinking is never printed, in any format", async () => {
    const steps = () => [
      reply()
        .thinking("SECRET-THOUGHT-1 about the file")
        .text("Reading.")
        .tool("Read", { file_path: "a.txt" }),
      reply().thinking("SECRET-THOUGHT-2 before answering").text("Done."),
    ];
    for (const args of [
      [],
      ["--output-format", "json"],
      ["--output-format", "stream-json"],
      ["--output-format", "stream-json", "--stream-partial-output"],
    ]) {
      const run = await runCli({ steps: steps(), files: { "a.txt": "a\n" }, args, chunkSize: 3 });
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain("SECRET-THOUGHT");
      expect(run.stderr).not.toContain("SECRET-THOUGHT");
      expect(run.events.filter((event) => event.type === "thinking")).toEqual([]);
    }
  });

  test("PM-4 every event is one line of JSON ending in \\n; nothing else reaches stdout", async () => {
    const run = await runCli({
      steps: [
        reply().text("Running.").tool("Bash", { command: "echo tool-output-on-stdout; echo tool-err >&2" }),
        reply().text("Ran it."),
      ],
      args: ["--output-format", "stream-json", "--stream-partial-output"],
      chunkSize: 2,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith("\n")).toBe(true);
    const lines = run.stdout.slice(0, -1).split("\n");
    expect(lines.length).toBe(run.events.length); // parseLines parsed each line whole
    for (const line of lines) expect(line.startsWith("{") && line.endsWith("}")).toBe(true);
    // The tool's own output appears only inside the JSON payload.
    expect(run.stdout.split("\n").filter((line) => line.includes("tool-output-on-stdout"))).toHaveLength(2);

    // A warning goes to stderr; stdout still holds only the JSON object.
    const warned = await runCli({
      steps: [reply().text("Fine.")],
      args: ["--output-format", "json", "--stream-partial-output"],
    });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /^cairn: --stream-partial-output only applies to --output-format stream-json/,
    );
    expect(warned.stdout).toBe(`${JSON.stringify(warned.events[0])}\n`);
  });

  test("PM-5 documented fields are always present under their documented names; additions are additive", async () => {
    const run = await runCli({
      steps: [reply().text("Reading.").tool("Read", { file_path: "a.txt" }), reply().text("Done.")],
      files: { "a.txt": "a\n" },
      args: ["--output-format", "stream-json"],
    });
    expect(run.code).toBe(0);
    // parseLines validated every line against docs/schema/ (required = the documented fields).
    const documented: Record<string, string[]> = {
      "system/init": ["type", "subtype", "apiKeySource", "cwd", "session_id", "model", "permissionMode"],
      user: ["type", "message", "session_id"],
      assistant: ["type", "message", "session_id"],
      "tool_call/started": ["type", "subtype", "call_id", "tool_call", "session_id"],
      "tool_call/completed": ["type", "subtype", "call_id", "tool_call", "session_id"],
      "result/success": [
        "type",
        "subtype",
        "is_error",
        "duration_ms",
        "duration_api_ms",
        "result",
        "session_id",
        "request_id",
      ],
    };
    // What cairn adds beyond the original document (docs/events.md lists each).
    const added: Record<string, string[]> = {
      "system/init": ["tools"],
      "result/success": ["num_turns", "usage", "total_cost_usd"], // a priced model: its cost is known
    };
    for (const event of run.events) {
      const label = event.type === "tool_call" ? `tool_call/${event.subtype}` : labels([event])[0]!;
      const keys = Object.keys(event);
      expect(keys.slice(0, documented[label]!.length)).toEqual(documented[label]);
      expect(keys.slice(documented[label]!.length).sort()).toEqual((added[label] ?? []).sort());
    }
  });

  test("PM-6 one run has one session_id, identical in every event", async () => {
    const steps = () => [reply().text("A.").tool("Read", { file_path: "a.txt" }), reply().text("B.")];
    const first = await runCli({
      steps: steps(),
      files: { "a.txt": "a\n" },
      args: ["--output-format", "stream-json", "--stream-partial-output"],
    });
    const ids = new Set(first.events.map((event) => event.session_id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const second = await runCli({
      steps: steps(),
      files: { "a.txt": "a\n" },
      args: ["--output-format", "json"],
    });
    expect(second.events[0]!.session_id).not.toBe(id);
  });
});
