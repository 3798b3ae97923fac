import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../../src/testing/index.js";
import {
  cleanEnv,
  cliCommand,
  hasScript,
  MODEL,
  parseLines,
  REPO,
  runCli,
  runInTerminal,
  serverEnv,
  shellQuote,
  spawnCli,
  startServer,
  workspace,
} from "./helpers.js";

/** Generous on purpose: this catches a process that does not exit, it does not measure speed. */
const EXIT_BOUND_MS = 5000;

function lastUserText(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  const content = messages.filter((message) => message.role === "user").at(-1)?.content;
  // A string, or text blocks (the provider may add cache_control and the like to them).
  if (typeof content === "string") return content;
  return (content as { text?: string }[]).map((block) => block.text ?? "").join("");
}

/** Never hang; how the prompt is read; the terminal niceties (help, progress). */
describe("process lifecycle", () => {
  test.each(["stream-json", "json", "text"])(
    "exits promptly after the result (%s) with stdin left open and a positional prompt",
    async (format) => {
      const server = await startServer([
        reply().text("Running.").tool("Bash", { command: "echo hi" }),
        reply().text("Finished."),
      ]);
      const cli = spawnCli(["-p", "Hi", "--model", MODEL, "--output-format", format], {
        cwd: workspace(),
        env: serverEnv(server),
        stdin: "open", // an inherited pipe that never closes
      });
      const marker = format === "text" ? /Finished\.\n/ : /"type":"result"[^\n]*\n/;
      let resultAt = 0;
      cli.child.stdout!.on("data", () => {
        if (!resultAt && marker.test(cli.out.stdout)) resultAt = Date.now();
      });
      const exit = await cli.exited;
      const exitedAt = Date.now();
      expect(exit).toEqual({ code: 0, signal: null });
      expect(resultAt).toBeGreaterThan(0);
      expect(exitedAt - resultAt).toBeLessThan(EXIT_BOUND_MS);
      if (format !== "text") parseLines(cli.out.stdout); // every line schema-valid
    },
  );

  test("reads the prompt from piped stdin when no positional prompt is given", async () => {
    const prompt = "First line of the prompt\nsecond line: ünïcödé";
    const run = await runCli({ steps: [reply().text("Got it.")], prompt: null, stdin: `${prompt}\n` });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Got it.\n");
    expect(lastUserText(run.server.requests[0]!.body)).toBe(prompt);
  });

  test("a positional prompt wins: stdin is never read, even when it holds text and stays open", async () => {
    const server = await startServer([reply().text("From the argument.")]);
    const cli = spawnCli(["-p", "The argument", "--model", MODEL], {
      cwd: workspace(),
      env: serverEnv(server),
      stdin: "open",
    });
    cli.child.stdin!.write("STDIN-TEXT\n");
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(lastUserText(server.requests[0]!.body)).toBe("The argument");
    expect(JSON.stringify(server.requests)).not.toContain("STDIN-TEXT");
  });

  test("waiting for a prompt on stdin says so on stderr, then runs when it arrives", async () => {
    const server = await startServer([reply().text("Late prompt handled.")]);
    const cli = spawnCli(["--model", MODEL], { cwd: workspace(), env: serverEnv(server), stdin: "open" });
    const deadline = Date.now() + 10_000;
    while (!cli.out.stderr.includes("waiting for the prompt on stdin") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(cli.out.stderr).toBe(
      "cairn: waiting for the prompt on stdin (give it as an argument instead, or close stdin)\n",
    );
    cli.child.stdin!.end("Here it is");
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.out.stdout).toBe("Late prompt handled.\n");
  });

  test("--help is written for a person, on stdout, exit 0; --version prints the version", async () => {
    const help = await runCli({ rawArgs: ["--help"] });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^cairn: a headless coding agent\./);
    for (const flag of [
      "-p, --print",
      "--output-format",
      "--stream-partial-output",
      "-m, --model",
      "--api-key",
      "-f, --force, --yolo",
      "--workspace",
      "-v, --version",
      "-h, --help",
      "Exit codes:",
    ]) {
      expect(help.stdout).toContain(flag);
    }
    const version = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version as string;
    for (const flag of ["-v", "--version"]) {
      const run = await runCli({ rawArgs: [flag] });
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  test("--base-url points the provider at a server (instead of ANTHROPIC_BASE_URL)", async () => {
    const server = await startServer([reply().text("Via the flag.")]);
    const cli = spawnCli(["-p", "Hi", "--model", MODEL, "--base-url", server.url], {
      cwd: workspace(),
      env: cleanEnv({ ANTHROPIC_API_KEY: "test" }),
    });
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.out.stdout).toBe("Via the flag.\n");
  });

  test("`cairn models` lists the known models and providers; --json gives the same as JSON", async () => {
    const text = await runCli({ rawArgs: ["models"] });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("anthropic/claude-sonnet-5-5");
    const json = await runCli({ rawArgs: ["models", "--json"] });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).models.length).toBeGreaterThan(0);
  });

  test("text output shows no progress line when stderr is not a terminal", async () => {
    const run = await runCli({
      steps: [reply().text("A.").tool("Read", { file_path: "a.txt" }), reply().text("B.")],
      files: { "a.txt": "a\n" },
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("B.\n");
  });

  describe.skipIf(!hasScript())("at a terminal", () => {
    test("`cairn -p` at a terminal without a prompt is a usage error (exit 2), not a wait on the terminal", async () => {
      const run = await runInTerminal(cliCommand(["-p", "--model", MODEL]), {
        cwd: workspace(),
        env: cleanEnv(),
      });
      expect(run.code).toBe(2);
      expect(run.terminal).toBe(
        'cairn: No prompt given. Usage: cairn -p "<prompt>", or pipe the prompt on stdin.\n',
      );
    });

    test("text shows a progress line (current tool, elapsed) on a TTY stderr, erased at the end; none of it on stdout", async () => {
      const server = await startServer([
        reply().text("Reading.").tool("Read", { file_path: "notes.txt" }),
        reply().text("Sleeping.").tool("Bash", { command: "sleep 0.6" }),
        reply().text("All done."),
      ]);
      const dir = workspace({ "notes.txt": "n\n" });
      const out = join(dir, "stdout.txt");
      // stdout goes to a file; stderr (and stdin) stay on the pseudo-terminal.
      const run = await runInTerminal(`${cliCommand(["-p", "Hi", "--model", MODEL])} > ${shellQuote(out)}`, {
        cwd: dir,
        env: serverEnv(server),
      });
      expect(run.code).toBe(0);
      expect(readFileSync(out, "utf8")).toBe("All done.\n");
      expect(run.terminal).toContain("Read notes.txt · 0s");
      // A call is named by its display title, as every door shows it.
      expect(run.terminal).toMatch(/`sleep 0\.6` · \ds/);
      // The last thing written erases the line: nothing of it stays on the terminal.
      expect(run.terminal.endsWith("\r\x1b[2K")).toBe(true);
    });
  });
});
