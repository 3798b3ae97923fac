import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { hang, httpError, reply } from "../../../src/testing/index.js";
import { isAlive } from "../../helpers/process.js";
import {
  cleanEnv,
  MODEL,
  parseLines,
  runCli,
  serverEnv,
  spawnCli,
  startServer,
  workspace,
} from "./helpers.js";

/** A single line `cairn: …` on stderr, without a stack trace. */
function expectOneLineError(stderr: string, pattern: RegExp): void {
  expect(stderr).toMatch(/^cairn: [^\n]+\n$/);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

/** Resolves once `read()` holds a complete line matching `pattern` (polling the live output). */
async function waitFor(read: () => string, pattern: RegExp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(read())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${pattern}; got ${JSON.stringify(read())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Exit codes (README): 0 success, 1 runtime failure, 2 usage, 130 SIGINT, 143 SIGTERM. */
describe("exit codes and errors", () => {
  test("0: the run succeeded", async () => {
    const run = await runCli({ steps: [reply().text("Ok.")] });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
  });

  test("1: a provider error", async () => {
    const run = await runCli({
      steps: [httpError(400, { message: "bad request, scripted" })],
      args: ["--output-format", "stream-json"],
    });
    expect(run.code).toBe(1);
    expectOneLineError(run.stderr, /Anthropic API error 400.*bad request, scripted/);
  });

  test("1: the maximum number of turns was reached", async () => {
    const run = await runCli({
      steps: [reply().text("Looking.").tool("Read", { file_path: "a.txt" }), reply().text("never reached")],
      files: { "a.txt": "a\n" },
      args: ["--max-turns", "1", "--output-format", "json"],
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expectOneLineError(run.stderr, /maximum number of turns \(1\)/);
  });

  test("1: the run was aborted because the reader closed stdout", async () => {
    const server = await startServer([reply().text("x".repeat(400)).delayPerEvent(20)], 1);
    const dir = workspace();
    const cli = spawnCli(
      ["-p", "Hi", "--model", MODEL, "--output-format", "stream-json", "--stream-partial-output"],
      {
        cwd: dir,
        env: serverEnv(server),
      },
    );
    await waitFor(() => cli.out.stdout, /"type":"assistant"/);
    cli.child.stdout!.destroy(); // like `cairn … | head -3`
    const { code } = await cli.exited;
    expect(code).toBe(1);
    expectOneLineError(cli.out.stderr, /stdout was closed/);
  });

  const usageErrors: [string, string[], RegExp, Record<string, string>?][] = [
    ["an unknown flag", ["-p", "Hi", "--bogus"], /unknown option '--bogus'/],
    ["a bad --output-format", ["-p", "Hi", "--output-format", "xml"], /argument 'xml' is invalid/],
    ["a bad --max-turns", ["-p", "Hi", "--max-turns", "0"], /--max-turns must be a positive integer/],
    ["an empty prompt on stdin", ["-p"], /prompt read from stdin is empty/],
    ["an empty prompt argument", ["-p", "  "], /prompt is empty/],
    ["an unknown provider", ["-p", "Hi", "--model", "nope/some-model"], /Unknown provider "nope"/],
    [
      "a missing API key",
      ["-p", "Hi", "--model", MODEL],
      /needs an Anthropic API key/,
      { ANTHROPIC_API_KEY: "" },
    ],
    ["a missing scenario", ["-p", "Hi", "--model", "replay:missing.json"], /missing\.json/],
    ["a broken scenario", ["-p", "Hi", "--model", "replay:broken.json"], /broken\.json is not valid JSON/],
    [
      "a workspace that is not a directory",
      ["-p", "Hi", "--workspace", "nowhere"],
      /nowhere is not a directory/,
    ],
  ];
  test.each(usageErrors)("2: %s", async (_, args, message, env) => {
    const run = await runCli({
      rawArgs: args.includes("--model") ? args : [...args, "--model", MODEL],
      files: { "broken.json": "{ not json" },
      ...(env ? { env } : {}),
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expectOneLineError(run.stderr, message);
    expect(run.server.requests).toHaveLength(0);
  });

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    test(`${code}: ${signal} during a model call that never answers; the stream ends without result`, async () => {
      const server = await startServer([hang()]);
      const dir = workspace();
      const cli = spawnCli(["-p", "Hi", "--model", MODEL, "--output-format", "stream-json"], {
        cwd: dir,
        env: serverEnv(server),
        stdin: "open",
      });
      await waitFor(() => cli.out.stdout, /\n/); // the first event line
      await waitFor(() => String(server.requests.length), /1/);
      cli.child.kill(signal);
      const exit = await cli.exited;
      expect(exit).toEqual({ code, signal: null });
      expect(parseLines(cli.out.stdout).map((event) => event.type)).toEqual(["system", "user"]);
      expectOneLineError(
        cli.out.stderr,
        signal === "SIGINT" ? /interrupted \(SIGINT\)/ : /terminated \(SIGTERM\)/,
      );
    });
  }

  /**
   * Runs `command` (which writes its sleeper's pid to sleep.pid) through Bash, then sends SIGINT.
   * Without the sandbox, whose PID namespace would hide the host pid (test/security/sandbox.test.ts
   * checks signals under the sandbox).
   */
  async function interruptShell(command: string): Promise<number> {
    const server = await startServer([reply().tool("Bash", { command }), reply().text("never reached")]);
    const dir = workspace();
    const args = [
      "-p",
      "Hi",
      "--model",
      MODEL,
      "--output-format",
      "stream-json",
      "--force",
      "--sandbox",
      "disabled",
    ];
    const cli = spawnCli(args, {
      cwd: dir,
      env: serverEnv(server),
    });
    const pidFile = join(dir, "sleep.pid");
    await waitFor(() => (existsSync(pidFile) ? readFileSync(pidFile, "utf8") : ""), /^\d+\n$/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(pid)).toBe(true);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toEqual({ code: 130, signal: null });
    return pid;
  }

  test("130: SIGINT during a shell command stops the command's whole process group (no orphan)", async () => {
    const pid = await interruptShell("sleep 30 & echo $! > sleep.pid; wait");
    await waitFor(() => String(isAlive(pid)), /false/, 3000);
  });

  test("130: SIGINT also ends a command that ignores SIGTERM (killed before cairn exits)", async () => {
    const pid = await interruptShell("trap '' TERM; sleep 30 & echo $! > sleep.pid; wait");
    // The SIGKILL that follows the ignored SIGTERM went out before cairn exited.
    await waitFor(() => String(isAlive(pid)), /false/, 1500);
  });

  test("130: a second SIGINT while the run winds down exits at once, in one line saying so", async () => {
    // The command ignores SIGTERM, so the first SIGINT waits out the kill grace (2 s) before SIGKILL.
    const server = await startServer([
      reply().tool("Bash", { command: "trap '' TERM; echo $$ > sh.pid; sleep 30 & wait" }),
      reply().text("never reached"),
    ]);
    const dir = workspace();
    const cli = spawnCli(
      ["-p", "Hi", "--model", MODEL, "--output-format", "stream-json", "--force", "--sandbox", "disabled"],
      { cwd: dir, env: serverEnv(server) },
    );
    const pidFile = join(dir, "sh.pid");
    await waitFor(() => (existsSync(pidFile) ? readFileSync(pidFile, "utf8") : ""), /^\d+\n$/);
    cli.child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 200));
    cli.child.kill("SIGINT");
    expect(await cli.exited).toEqual({ code: 130, signal: null });
    // Before, it exited silently, and a reader could not tell why the stream stopped.
    expectOneLineError(cli.out.stderr, /SIGINT again: exiting without waiting for the run to wind down/);
  });

  test("0: a SIGTERM after the answer is complete, while a slow reader drains it, stops nothing", async () => {
    // It exited 143 with the whole success JSON on stdout, which PM-14 keeps for failures.
    const answer = "y".repeat(300_000); // more than a pipe holds, so the output waits for the reader
    const server = await startServer([reply().text(answer)]);
    const home = workspace();
    const cli = spawnCli(["-p", "Hi", "--model", MODEL, "--output-format", "json"], {
      cwd: workspace(),
      env: { ...serverEnv(server), CAIRN_HOME: home },
    });
    cli.child.stdout!.pause();
    // The transcript's run_end: the run is over, only its output is still draining.
    const transcript = () =>
      readdirSync(home, { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => readFileSync(join(home, name), "utf8"))
        .join("");
    await waitFor(transcript, /"run_end"/);
    cli.child.kill("SIGTERM");
    cli.child.stdout!.resume();
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(cli.out.stdout)).toMatchObject({ subtype: "success", result: answer });
  });

  test("130: SIGINT while waiting for the prompt on stdin", async () => {
    const cli = spawnCli(["--model", MODEL], { cwd: workspace(), env: cleanEnv(), stdin: "open" });
    // The stdin hint (after 3 s) shows cairn is waiting on stdin: a fixed sleep races a loaded machine.
    while (cli.out.stderr === "") await new Promise((resolve) => setTimeout(resolve, 50));
    const hint = cli.out.stderr;
    cli.child.kill("SIGINT");
    expect(await cli.exited).toEqual({ code: 130, signal: null });
    expect(hint).toMatch(/waiting for the prompt on stdin/);
    expectOneLineError(cli.out.stderr.slice(hint.length), /interrupted/);
  });
});
