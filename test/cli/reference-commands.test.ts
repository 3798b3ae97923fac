import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { cleanEnv, MODEL, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";

/**
 * The reference CLI's subcommands, as the programs that spawn it call them: answered by cairn itself,
 * never sent to the model as a prompt (the scripted server must see no request).
 */
async function run(args: string[], env: NodeJS.ProcessEnv, cwd = workspace()) {
  const cli = spawnCli(args, { cwd, env });
  const { code } = await cli.exited;
  return { code, ...cli.out };
}

describe("reference CLI subcommands", () => {
  test("status / whoami say what is configured (text and --format json); not configured exits 1", async () => {
    const server = await startServer([reply().text("should never be asked")]);
    const configured = await run(["status", "--format", "json"], serverEnv(server));
    expect(configured.code).toBe(0);
    expect(JSON.parse(configured.stdout)).toMatchObject({
      status: "authenticated",
      isAuthenticated: true,
      model: MODEL,
      apiKeySource: "env",
    });
    const whoami = await run(["whoami"], serverEnv(server));
    expect(whoami.stdout).toMatch(new RegExp(`^Configured: ${MODEL} `));
    const missing = await run(["status", "--format=json"], cleanEnv());
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ status: "unauthenticated", isAuthenticated: false });
    expect(server.requests).toHaveLength(0);
  });

  test("about --format json: version, model, platform", async () => {
    const server = await startServer([]);
    const about = await run(["about", "--format", "json"], serverEnv(server));
    expect(about.code).toBe(0);
    expect(JSON.parse(about.stdout)).toMatchObject({
      cliVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      model: MODEL,
      osPlatform: process.platform,
    });
    expect(server.requests).toHaveLength(0);
  });

  test("create-chat prints a new session id that --resume then continues, prompt after prompt", async () => {
    const server = await startServer([reply().text("Resumed."), reply().text("Second.")]);
    const cwd = workspace();
    const created = await run(["create-chat"], serverEnv(server), cwd);
    expect(created.code).toBe(0);
    const id = created.stdout.trim().split("\n").at(-1)!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests).toHaveLength(0);
    const resumed = await run(
      ["-p", "go on", "--resume", id, "--model", MODEL, "--output-format", "json"],
      serverEnv(server),
      cwd,
    );
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id, result: "Resumed." });
    expect(resumed.stderr).toBe("");
    const second = await run(
      ["-p", "and then", "--resume", id, "--model", MODEL, "--output-format", "json"],
      serverEnv(server),
      cwd,
    );
    expect(JSON.parse(second.stdout)).toMatchObject({ session_id: id, result: "Second." });
    // The second prompt's request carries the first prompt and its answer.
    const sent = JSON.stringify(server.requests[1]!.body);
    expect(sent).toContain("go on");
    expect(sent).toContain("Resumed.");
  });

  test("resume continues the latest session of this directory (as --continue)", async () => {
    const server = await startServer([reply().text("First."), reply().text("Second.")]);
    const cwd = workspace();
    const first = await run(
      ["-p", "one", "--model", MODEL, "--output-format", "json"],
      serverEnv(server),
      cwd,
    );
    const id = JSON.parse(first.stdout).session_id;
    const resumed = await run(
      ["resume", "-p", "two", "--model", MODEL, "--output-format", "json"],
      serverEnv(server),
      cwd,
    );
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id, result: "Second." });
    expect(JSON.stringify(server.requests[1]!.body)).toContain("First.");
  });

  test("the reference's `agent` subcommand word before a prompt is its default command, not prompt text", async () => {
    const server = await startServer([reply().text("Ran.")]);
    const result = await run(
      ["--model", MODEL, "agent", "--print", "--output-format", "json", "Fix the bug"],
      serverEnv(server),
    );
    expect(result.code).toBe(0);
    const sent = JSON.stringify(server.requests[0]!.body);
    expect(sent).toContain('"Fix the bug"');
    expect(sent).not.toContain("agent Fix the bug");
  });

  test("login / logout explain how cairn is configured (exit 1); update says how to update; help prints help", async () => {
    const server = await startServer([]);
    const env = serverEnv(server);
    const login = await run(["login"], env);
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/^cairn: cairn has no account to log in to: .*ANTHROPIC_API_KEY/);
    expect(login.stdout).toBe("");
    expect((await run(["logout"], env)).code).toBe(1);
    const update = await run(["update"], env);
    expect(update.code).toBe(0);
    expect(update.stdout).toContain("npm install -g cairn@latest");
    const help = await run(["help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("cairn -p");
    expect(server.requests).toHaveLength(0);
  });

  test("a prompt that is one of these words still goes to the model with -p", async () => {
    const server = await startServer([reply().text("Status is fine.")]);
    const result = await run(
      ["-p", "status", "--model", MODEL, "--output-format", "json"],
      serverEnv(server),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ result: "Status is fine." });
    expect(server.requests).toHaveLength(1);
  });
});

describe("reference CLI flags", () => {
  test("--mode plan and --plan are read-only; --mode ask also refuses every shell command", async () => {
    for (const flags of [["--mode", "plan"], ["--plan"], ["--mode", "ask"]]) {
      const server = await startServer([
        reply().tool("Write", { file_path: "x.txt", content: "x" }).tool("Bash", { command: "ls" }),
        reply().text("Done."),
      ]);
      const cwd = workspace({ "listed-by-ls.txt": "" });
      const result = await run(
        ["-p", "go", "--model", MODEL, "--output-format", "json", ...flags],
        serverEnv(server),
        cwd,
      );
      expect(result.code).toBe(0);
      const sent = JSON.stringify(server.requests[1]!.body);
      expect(sent).toContain("plan mode is read-only");
      // `ls` is a read-only command: plan runs it; ask offers no shell at all, and refuses the call.
      const ask = flags.includes("ask");
      expect(sent.includes("listed-by-ls.txt")).toBe(!ask);
      expect(JSON.stringify(server.requests[0]!.body).includes('"name":"Bash"')).toBe(!ask);
    }
  });

  test("--force with a read-only mode runs read-only (the reference accepts both): a note says --force does not apply", async () => {
    for (const flags of [
      ["--mode", "plan", "--force"],
      ["--plan", "--yolo"],
      ["--mode", "ask", "-f"],
      ["--permission-mode", "plan", "--force"],
    ]) {
      const server = await startServer([
        reply().tool("Write", { file_path: "x.txt", content: "x" }).tool("Bash", { command: "touch made" }),
        reply().text("Read-only."),
      ]);
      const cwd = workspace();
      const result = await run(
        ["-p", "go", "--model", MODEL, "--output-format", "json", ...flags],
        serverEnv(server),
        cwd,
      );
      const label = flags.join(" ");
      expect(result.code, label).toBe(0);
      expect(JSON.parse(result.stdout), label).toMatchObject({ result: "Read-only." });
      const force = flags.includes("--yolo") ? "--yolo" : "--force";
      expect(result.stderr, label).toBe(
        `cairn: ${force} does not apply: ${flags.filter((flag) => !["--force", "--yolo", "-f"].includes(flag)).join(" ")} keeps the run read-only.\n`,
      );
      // Neither the write nor the command ran: the mode held, --force did not widen it.
      expect(existsSync(join(cwd, "x.txt")), label).toBe(false);
      expect(existsSync(join(cwd, "made")), label).toBe(false);
      expect(JSON.stringify(server.requests[1]!.body), label).toContain("plan mode is read-only");
    }
  });

  test("--force over a wider --permission-mode: the run bypasses permissions and a note says the mode does not apply", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "touch made" }),
      reply().text("Done."),
    ]);
    const cwd = workspace();
    const result = await run(
      [
        "-p",
        "go",
        "--model",
        MODEL,
        "--output-format",
        "json",
        "--permission-mode",
        "acceptEdits",
        "--force",
      ],
      serverEnv(server),
      cwd,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      "cairn: --permission-mode acceptEdits does not apply: --force runs every call without asking (bypassPermissions).\n",
    );
    // --force won: the command ran without asking.
    expect(existsSync(join(cwd, "made"))).toBe(true);
  });

  test("contradicting or empty flags are refused before anything runs (exit 2): --add-dir, --resume with --continue, --input-format", async () => {
    const cases: [string[], RegExp][] = [
      [["--add-dir", "no-such-dir"], /^cairn: --add-dir no-such-dir: no such directory\n$/],
      [
        ["--resume", "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b", "--continue"],
        /^cairn: --resume <id> and --continue each pick the session to resume: give one/,
      ],
      [["--input-format", "xml"], /^cairn: option '--input-format <format>' argument 'xml' is invalid/],
    ];
    for (const [flags, message] of cases) {
      const server = await startServer([reply().text("never")]);
      const result = await run(["-p", "hi", "--model", MODEL, ...flags], serverEnv(server));
      expect(result.code, flags.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
      expect(server.requests).toHaveLength(0);
    }
    // The reference's default input format, said out loud, is a prompt run like any other.
    const server = await startServer([reply().text("Plain text in.")]);
    const plain = await run(["-p", "hi", "--model", MODEL, "--input-format", "text"], serverEnv(server));
    expect(plain).toMatchObject({ code: 0, stdout: "Plain text in.\n" });
  });

  test("a --base-url that is not an http(s) URL is refused before anything runs (exit 2)", async () => {
    for (const url of ["not a url", "ftp://example.com", "http://"]) {
      const result = await run(
        ["-p", "hi", "--model", MODEL, "--base-url", url],
        cleanEnv({ ANTHROPIC_API_KEY: "k" }),
      );
      expect(result.code, url).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`cairn: --base-url must be an http:// or https:// URL, not "${url}"\n`);
    }
  });

  test("a consumer's fixed reference flags (--trust --sandbox disabled --approve-mcps --model auto -f) run the prompt", async () => {
    const server = await startServer([
      reply().tool("Bash", { command: "touch made" }),
      reply().text("Made."),
    ]);
    const cwd = workspace();
    const result = await run(
      [
        "-p",
        "make it",
        "--trust",
        "--sandbox",
        "disabled",
        "--approve-mcps",
        "--model",
        "auto",
        "-f",
        "--output-format",
        "json",
      ],
      serverEnv(server),
      cwd,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ result: "Made." });
    expect((server.requests[0]!.body as { model: string }).model).toBe("claude-sonnet-5-5");
    expect(existsSync(join(cwd, "made"))).toBe(true);
  });

  test("--new-session-id names the new session; anything but a UUIDv4 is the reference's error, exit 1", async () => {
    const server = await startServer([reply().text("Hi.")]);
    const id = "0b5c2a6e-3f1d-4c8e-9a7b-1d2e3f4a5b6c";
    const named = await run(
      ["-p", "hi", "--model", MODEL, "--output-format", "json", "--new-session-id", id],
      serverEnv(server),
    );
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ session_id: id });
    const bad = await run(
      ["-p", "hi", "--model", MODEL, "--new-session-id", "not-a-uuid"],
      serverEnv(server),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('cairn: Invalid --new-session-id "not-a-uuid": expected a UUIDv4.\n');
    expect(bad.stdout).toBe("");
  });

  test("cairn models / --list-models: `<id> - <name>` lines with (default) and (current); cairn models --prices keeps the table", async () => {
    const server = await startServer([]);
    for (const args of [["models"], ["--list-models"]]) {
      const listed = await run(args, serverEnv(server));
      expect(listed.code).toBe(0);
      const lines = listed.stdout.split("\n").filter((line) => / - /.test(line));
      expect(lines[0]).toBe("auto - Auto (default)");
      expect(lines).toContain("claude-sonnet-5-5 - Claude Sonnet 5.5 (current)");
      for (const line of lines) expect(line).toMatch(/^[A-Za-z0-9._-]+ - \S.*$/);
    }
    const prices = await run(["models", "--prices"], serverEnv(server));
    expect(prices.stdout).toMatch(/^MODEL +NAME +CONTEXT/m);
    expect(server.requests).toHaveLength(0);
  });

  test("a model of another provider is listed under an id without a slash (ollama/qwen3 → ollama-qwen3), which runs it", async () => {
    const server = await startServer([reply().text("From Ollama.")]);
    const env = cleanEnv({ CAIRN_MODEL: "ollama/qwen3", OLLAMA_BASE_URL: `${server.url}/v1` });
    const listed = await run(["models"], env);
    expect(listed.stdout).toContain("\nollama-qwen3 - qwen3 (Ollama) (current)\n");
    const ran = await run(
      ["-p", "hi", "--model", "ollama-qwen3", "--output-format", "json"],
      cleanEnv({
        OLLAMA_BASE_URL: `${server.url}/v1`,
      }),
    );
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ result: "From Ollama." });
    expect((server.requests[0]!.body as { model: string }).model).toBe("qwen3");
  });
});

describe("every id cairn models lists is accepted by --model as it is", () => {
  test("each listed id runs a prompt against the scripted server", { timeout: 120_000 }, async () => {
    const lister = await startServer([]);
    const listed = await run(["models"], serverEnv(lister));
    const ids = listed.stdout
      .split("\n")
      .filter((line) => / - /.test(line))
      .map((line) => line.slice(0, line.indexOf(" - ")));
    expect(ids.length).toBeGreaterThan(20);
    for (const id of ids) {
      const server = await startServer([reply().text(`Answered by ${id}.`)]);
      const env = { ...serverEnv(server), OPENAI_API_KEY: "test", OPENAI_BASE_URL: `${server.url}/v1` };
      const result = await run(["-p", "hi", "--model", id, "--output-format", "json"], env);
      expect({ id, code: result.code }).toEqual({ id, code: 0 });
      expect(JSON.parse(result.stdout)).toMatchObject({ result: `Answered by ${id}.` });
      // `auto` stands for the default model; every other id is the very model sent.
      const sent = (server.requests[0]!.body as { model: string }).model;
      expect(sent).toBe(id === "auto" ? "claude-sonnet-5-5" : id);
    }
  });
});

describe("the reference CLI's flags cairn does not have", () => {
  test("each fails at once (exit 2) with one line naming it and what to do instead", async () => {
    const server = await startServer([reply().text("never")]);
    for (const args of [["--auto-review"], ["--worktree", "x"], ["--endpoint=https://x"], ["-n", "name"]]) {
      const result = await run(["-p", "hi", "--model", MODEL, ...args], serverEnv(server));
      expect(result.code).toBe(2);
      const flag = args[0]!.split("=")[0]!;
      expect(result.stderr).toMatch(
        new RegExp(`^cairn: ${flag} is a flag of the reference CLI that cairn does not have: [^\\n]+\\n$`),
      );
      expect(result.stdout).toBe("");
    }
    expect(server.requests).toHaveLength(0);
  });

  test("set-channel says how cairn's releases are chosen (exit 1)", async () => {
    const result = await run(["set-channel", "lab"], cleanEnv());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cairn: cairn has no release channels: npm's dist-tags/);
  });
});
