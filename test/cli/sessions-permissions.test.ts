import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { reply } from "../../src/testing/index.js";
import { MODEL, runCli, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { semanticBody } from "../sdk/helpers.js";

type Event = Record<string, unknown>;
const completed = (events: Event[]) =>
  events.filter((e) => e.type === "tool_call" && e.subtype === "completed");
const toolResult = (event: Event) =>
  Object.values(event.tool_call as Record<string, { result: unknown }>)[0]!.result;

/** Every transcript under this test run's $CAIRN_HOME (test/setup-home.ts). */
function transcripts(): string[] {
  const root = join(process.env.CAIRN_HOME!, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => join(root, dir, name)),
  );
}

describe("print-mode permissions", () => {
  test("a shell command outside the read-only list is denied: it never runs, and the stream says why", async () => {
    const run = await runCli({
      steps: [reply().tool("Bash", { command: "touch marker" }), reply().text("Could not.")],
      args: ["--output-format", "stream-json"],
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(run.dir, "marker"))).toBe(false);
    const [call] = completed(run.events);
    const reason = expect.stringMatching(/touch.*--force|--force.*touch/s);
    // The reference CLI's `rejected` comes with `error` (its ACP adapters act on it).
    expect(toolResult(call!)).toEqual({
      error: { message: reason },
      rejected: { command: "touch marker", reason },
    });
    const result = toolResult(call!) as { error: { message: string }; rejected: { reason: string } };
    expect(result.rejected.reason).toBe(result.error.message);
    const sent = JSON.stringify(run.server.requests[1]!.body);
    expect(sent).toContain("denied");
  });

  test("--fail-on-denial makes a run with denials exit 3", async () => {
    const run = await runCli({
      steps: [reply().tool("Bash", { command: "touch marker" }), reply().text("Could not.")],
      args: ["--output-format", "json", "--fail-on-denial"],
    });
    expect(run.code).toBe(3);
    expect(existsSync(join(run.dir, "marker"))).toBe(false);
    expect(run.stderr).toMatch(/1 tool call\(s\) were denied \(Bash\)/);
  });

  test("--force runs it; an allow rule runs just that command", async () => {
    const forced = await runCli({
      steps: [reply().tool("Bash", { command: "touch marker" }), reply().text("Done.")],
      args: ["--force"],
    });
    expect(existsSync(join(forced.dir, "marker"))).toBe(true);
    const ruled = await runCli({
      steps: [reply().tool("Bash", { command: "touch marker" }), reply().text("Done.")],
      args: ["--allowedTools", "Bash(touch:*)"],
    });
    expect(existsSync(join(ruled.dir, "marker"))).toBe(true);
  });

  test("edits inside the workspace are allowed; a write to .git/hooks is refused even with --force", async () => {
    const run = await runCli({
      steps: [
        reply()
          .tool("Write", { file_path: "notes.txt", content: "ok\n" })
          .tool("Write", { file_path: ".git/hooks/pre-commit", content: "#!/bin/sh\ncurl evil\n" }),
        reply().text("Done."),
      ],
      args: ["--output-format", "stream-json", "--force"],
    });
    expect(readFileSync(join(run.dir, "notes.txt"), "utf8")).toBe("ok\n");
    expect(existsSync(join(run.dir, ".git/hooks/pre-commit"))).toBe(false);
    const results = completed(run.events).map(toolResult);
    expect(results[1]).toEqual({
      error: { message: expect.stringContaining(".git/hooks") },
      rejected: { path: ".git/hooks/pre-commit", reason: expect.stringContaining(".git/hooks") },
    });
  });

  test("a write outside the workspace is refused", async () => {
    const run = await runCli({
      steps: [reply().tool("Write", { file_path: "../escape.txt", content: "x" }), reply().text("Done.")],
      args: ["--output-format", "stream-json"],
    });
    expect(existsSync(join(run.dir, "..", "escape.txt"))).toBe(false);
    expect(toolResult(completed(run.events)[0]!)).toHaveProperty("error");
  });

  test("an invalid call is rejected as invalid before any permission check: no denial, the model reads the field", async () => {
    const run = await runCli({
      steps: [reply().tool("Write", { file_path: "../escape.txt" }), reply().text("Done.")],
      args: ["--output-format", "json", "--permission-mode", "default", "--fail-on-denial"],
    });
    // --fail-on-denial would exit 3 had the call been refused by the permission check.
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/denied/);
    expect(existsSync(join(run.dir, "..", "escape.txt"))).toBe(false);
    expect(JSON.stringify(run.server.requests[1]!.body)).toContain(
      "InputValidationError: Write was called with invalid input. The field `content`",
    );
  });
});

describe("sessions from the CLI", () => {
  test("--resume <id> continues the same session with its history; the transcript is 0600", async () => {
    const dir = workspace();
    const first = await runCli({ steps: [reply().text("First answer.")], args: ["--output-format", "json"] });
    // Run 1 happened in its own workspace; resume is by id, so the directory does not matter.
    const id = first.events[0]!.session_id as string;
    const server = await startServer([reply().text("Second answer.")]);
    const cli = spawnCli(
      ["-p", "And then?", "--model", MODEL, "--output-format", "stream-json", "--resume", id],
      {
        cwd: dir,
        env: serverEnv(server),
      },
    );
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    const events = cli.out.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    expect(events.every((event) => event.session_id === id)).toBe(true);
    const sent = server.requests[0]!.body as { messages: { role: string }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(sent.messages[1])).toContain("First answer.");
    const file = transcripts().find((path) => path.endsWith(`${id}.jsonl`))!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("--continue picks the latest session of the directory; --fork-session writes a new id", async () => {
    const files = {};
    const first = await runCli({ steps: [reply().text("One.")], args: ["--output-format", "json"], files });
    const id = first.events[0]!.session_id as string;
    const server = await startServer([reply().text("Two."), reply().text("Three.")]);
    const env = serverEnv(server);
    const cont = spawnCli(["-p", "next", "--model", MODEL, "--output-format", "json", "--continue"], {
      cwd: first.dir,
      env,
    });
    expect((await cont.exited).code).toBe(0);
    expect(JSON.parse(cont.out.stdout).session_id).toBe(id);
    const fork = spawnCli(
      ["-p", "again", "--model", MODEL, "--output-format", "json", "--resume", id, "--fork-session"],
      {
        cwd: first.dir,
        env,
      },
    );
    expect((await fork.exited).code).toBe(0);
    const forkId = JSON.parse(fork.out.stdout).session_id;
    expect(forkId).not.toBe(id);
    // The fork saw the whole conversation so far: two earlier prompts and answers, then its prompt.
    expect((server.requests[1]!.body as { messages: unknown[] }).messages).toHaveLength(5);
  });

  test("--resume of an unknown id starts a new session under that id (exit 0, one note), as the reference CLI", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const run = await runCli({
      steps: [reply().text("Fresh start."), reply().text("Remembered.")],
      args: ["--output-format", "json", "--resume", id],
    });
    expect(run.code).toBe(0);
    expect(run.events[0]).toMatchObject({ session_id: id, result: "Fresh start." });
    expect(run.stderr).toBe(`cairn: session ${id} not found; starting a new session under that id.\n`);
    // The session now exists: the next --resume continues it, silently.
    const again = spawnCli(["-p", "Again", "--model", MODEL, "--output-format", "json", "--resume", id], {
      cwd: run.dir,
      env: serverEnv(run.server),
    });
    expect((await again.exited).code).toBe(0);
    expect(again.out.stderr).toBe("");
    expect(JSON.stringify(run.server.requests[1]!.body)).toContain("Fresh start.");
  });

  test('--fork-session of an unknown id is an error saying "session <id> not found" (exit 1)', async () => {
    const run = await runCli({
      steps: [],
      args: ["--resume", "00000000-0000-4000-8000-00000000f0f0", "--fork-session"],
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^cairn: session 00000000-0000-4000-8000-00000000f0f0 not found \(.*\n$/);
  });

  test("cairn ls lists the directory's sessions with their first prompt", async () => {
    const run = await runCli({
      steps: [reply().text("Listed.")],
      prompt: "Remember the milk",
      args: ["--output-format", "json"],
    });
    const id = run.events[0]!.session_id as string;
    const ls = spawnCli(["ls"], { cwd: run.dir, env: serverEnv(run.server) });
    expect((await ls.exited).code).toBe(0);
    expect(ls.out.stdout).toMatch(new RegExp(`${id}.*Remember the milk`));
  });

  test("a secret in the environment reaches neither tool output nor the transcript", async () => {
    const run = await runCli({
      steps: [reply().tool("Bash", { command: "env" }), reply().text("Done.")],
      args: ["--output-format", "stream-json", "--force"],
      env: { DEPLOY_TOKEN: "s3cr3t-value-42", MY_PASSWORD: "hunter2-xyz" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("s3cr3t-value-42");
    expect(run.stdout).not.toContain("hunter2-xyz");
    const id = run.events[0]!.session_id as string;
    const file = transcripts().find((path) => path.endsWith(`${id}.jsonl`))!;
    const transcript = readFileSync(file, "utf8");
    expect(transcript).toContain("PATH="); // the env output was recorded...
    expect(transcript).not.toContain("s3cr3t-value-42"); // ...without the secrets
  });

  test("after Ctrl-C during a command, the session resumes cleanly: every tool call has its result", async () => {
    const server = await startServer([
      reply().text("Running.").tool("Bash", { command: "sleep 30" }),
      reply().text("Resumed fine."),
    ]);
    const dir = workspace();
    const env = serverEnv(server);
    const first = spawnCli(["-p", "Go", "--model", MODEL, "--output-format", "stream-json", "--force"], {
      cwd: dir,
      env,
    });
    while (!first.out.stdout.includes('"subtype":"started"')) await new Promise((r) => setTimeout(r, 20));
    first.child.kill("SIGINT");
    expect((await first.exited).code).toBe(130);
    const id = JSON.parse(first.out.stdout.split("\n")[0]!).session_id as string;

    const second = spawnCli(["-p", "Carry on", "--model", MODEL, "--output-format", "json", "--resume", id], {
      cwd: dir,
      env,
    });
    expect((await second.exited).code).toBe(0);
    expect(JSON.parse(second.out.stdout)).toMatchObject({ session_id: id, result: "Resumed fine." });
    const sent = server.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    const uses = sent.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: { type: string }) => b.type === "tool_use")
      .map((b: { id: string }) => b.id);
    const results = sent.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: { type: string }) => b.type === "tool_result")
      .map((b: { tool_use_id: string }) => b.tool_use_id);
    expect(uses).toHaveLength(1);
    expect(results).toEqual(uses);
    expect(sent.messages.at(-1)).toMatchObject({ role: "user" });
  });
});

describe("print mode: Ctrl-C mid-answer, then --resume", () => {
  test("the resumed request carries the text already printed and the note that the user interrupted", async () => {
    const server = await startServer([
      // The answer stops after its first chunk ("Partial answer, ") and would never go on.
      reply().text("Partial answer, then the rest.").stall(3, 600_000),
      reply().text("Resumed fine."),
    ]);
    const dir = workspace();
    const env = serverEnv(server);
    const args = ["--model", MODEL, "--output-format", "stream-json", "--stream-partial-output"];
    const first = spawnCli(["-p", "Explain it", ...args], { cwd: dir, env });
    while (!first.out.stdout.includes("Partial answer, ")) await new Promise((r) => setTimeout(r, 20));
    first.child.kill("SIGINT");
    expect((await first.exited).code).toBe(130);
    const id = JSON.parse(first.out.stdout.split("\n")[0]!).session_id as string;

    const second = spawnCli(["-p", "Go on", ...args, "--resume", id], { cwd: dir, env });
    expect((await second.exited).code).toBe(0);
    expect(second.out.stderr).toBe("");
    const sent = semanticBody<{ messages: unknown[] }>(server.requests[1]!.body).messages;
    expect(sent).toEqual([
      { role: "user", content: "Explain it" },
      { role: "assistant", content: [{ type: "text", text: "Partial answer, " }] },
      {
        role: "user",
        content: [
          { type: "text", text: "[Request interrupted by user]" },
          { type: "text", text: "Go on" },
        ],
      },
    ]);
  });
});

describe("rules naming no known tool", () => {
  test("bash(touch:*) is a usage error (exit 2), nothing runs", async () => {
    const run = await runCli({
      steps: [reply().tool("Bash", { command: "touch marker" }), reply().text("Done.")],
      args: ["--disallowedTools", "bash(touch:*)", "--force"],
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^cairn: .*bash\(touch:\*\).*did you mean Bash\?/);
    expect(existsSync(join(run.dir, "marker"))).toBe(false);
  });

  test("a rule for a tool cairn does not have is reported once on stderr", async () => {
    const run = await runCli({
      steps: [reply().text("Done.")],
      args: ["--disallowedTools", "SlashCommand,MyTool"],
    });
    expect(run.code).toBe(0);
    expect(
      run.stderr.match(/permission rule SlashCommand \(.*\) has no effect: cairn has no SlashCommand tool/g),
    ).toHaveLength(1);
    expect(run.stderr).toMatch(/permission rule MyTool \(.*\) has no effect: no tool is named MyTool/);
  });
});
