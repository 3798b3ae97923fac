import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { hang, reply, type StepInput } from "../../src/testing/index.js";
import { MODEL, parseLines, serverEnv, spawnCli, startServer, workspace } from "../conformance/pm/helpers.js";
import { needsSandbox, sandboxUnavailable } from "../security/sandbox-helpers.js";

/**
 * Background shells (Bash `run_in_background`, BashOutput, TaskStop / KillShell) through the built
 * CLI against the scripted model. The processes are found by a command line no other process has
 * (`sleep <unique number>`), so they are found on the host whether or not a sandbox's PID namespace
 * started them. No timing is asserted: conditions are polled with a generous overall bound.
 */

const BOUND_MS = 20_000;

/** A number no other process on the machine has as `sleep`'s argument. */
function uniqueSeconds(): string {
  return String(900_000 + Math.floor(Math.random() * 90_000));
}

/** Pids of processes running `sleep <seconds>` (read from /proc). */
function sleepers(seconds: string): number[] {
  const wanted = `sleep\0${seconds}\0`;
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const state = readFileSync(`/proc/${name}/stat`, "utf8");
      if (cmdline.endsWith(wanted) && !/^\d+ \(.*\) [ZX] /.test(state)) found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A shell that starts a grandchild and exits at once: the grandchild outlives its parent. */
function orphaningCommand(seconds: string, { ignoreTerm = false } = {}): string {
  // An ignored signal stays ignored across fork and exec: the grandchild then needs SIGKILL.
  const trap = ignoreTerm ? `trap "" TERM; ` : "";
  return `sh -c '${trap}sleep ${seconds} & echo started > started.txt'; echo launched`;
}

const waitForFile = (file: string) =>
  `for i in $(seq 400); do [ -e ${file} ] && exit 0; sleep 0.05; done; echo "${file} never came"; exit 1`;

/** The tool results the model was sent, by tool_use id (from every request the CLI made). */
function toolResults(requests: readonly { body: unknown }[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const request of requests) {
    const messages = (request.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type?: string; tool_use_id?: string; content?: unknown }[]) {
        if (block.type !== "tool_result" || !block.tool_use_id) continue;
        const content = block.content;
        results.set(
          block.tool_use_id,
          typeof content === "string"
            ? content
            : (content as { text?: string }[]).map((part) => part.text ?? "").join(""),
        );
      }
    }
  }
  return results;
}

/** Runs the CLI (stream-json, --force unless `force: false`) on `steps` without waiting for its end. */
async function start(
  steps: StepInput[],
  extraArgs: string[] = ["--sandbox", "disabled"],
  options: { env?: Record<string, string>; dir?: string; force?: boolean } = {},
) {
  const server = await startServer(steps);
  const dir = options.dir ?? workspace();
  const spawned = spawnCli(
    [
      ...["-p", "Do the task", "--model", MODEL, "--output-format", "stream-json"],
      ...(options.force === false ? [] : ["--force"]),
      ...extraArgs,
    ],
    { cwd: dir, env: { ...serverEnv(server), ...options.env }, timeoutMs: 60_000 },
  );
  return { ...spawned, server, dir };
}

describe.skipIf(!existsSync("/proc/self"))("background shells", () => {
  test("Bash run_in_background returns a shell id at once; BashOutput returns only new output, filtered; TaskStop ends it", async () => {
    const command =
      "echo one; echo two-match >&2; touch printed1; " +
      "while [ ! -e go ]; do sleep 0.05; done; echo three; echo four-match; touch printed2; exec sleep 600";
    const run = await start([
      reply().tool("Bash", { command, run_in_background: true }, "toolu_bg"),
      reply().tool("Bash", { command: waitForFile("printed1") }, "toolu_wait1"),
      reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read1"),
      reply().tool("Bash", { command: `touch go; ${waitForFile("printed2")}` }, "toolu_wait2"),
      reply().tool("BashOutput", { bash_id: "bash_1", filter: "match" }, "toolu_read2"),
      reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read3"),
      reply().tool("KillShell", { shell_id: "bash_1" }, "toolu_kill"),
      reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read4"),
      reply().tool("TaskStop", { task_id: "bash_1" }, "toolu_kill2"),
      reply().text("Done."),
    ]);
    const { code } = await run.exited;
    expect(run.out.stderr).toBe("");
    expect(code).toBe(0);
    const results = toolResults(run.server.requests);
    expect(results.get("toolu_bg")).toMatch(/^Command running in background with ID: bash_1\./);
    const first = results.get("toolu_read1")!;
    expect(first).toContain("<status>running</status>");
    expect(first).toContain("<stdout>\none\n</stdout>");
    expect(first).toContain("<stderr>\ntwo-match\n</stderr>");
    // Only what came since the last read, and only the lines matching the filter.
    const second = results.get("toolu_read2")!;
    expect(second).toContain("<stdout>\nfour-match\n</stdout>");
    expect(second).not.toContain("three");
    expect(second).not.toContain("two-match");
    // The lines the filter left out are gone: nothing new since.
    expect(results.get("toolu_read3")).not.toContain("<stdout>");
    expect(results.get("toolu_kill")).toContain("Successfully stopped background shell: bash_1");
    expect(results.get("toolu_read4")).toContain("<status>killed</status>");
    expect(results.get("toolu_read4")).toContain("stopped by TaskStop");
    expect(results.get("toolu_kill2")).toMatch(/bash_1 is not running \(status: killed\)/);

    // stream-json: the launch is a shellToolCall marked as in the background, naming the shell;
    // BashOutput and TaskStop are `function` calls (docs/events.md).
    const events = parseLines(run.out.stdout);
    const completed = (id: string) =>
      events.find((event) => event.subtype === "completed" && event.call_id === id)?.tool_call as Record<
        string,
        { args: Record<string, unknown>; result: { success: Record<string, unknown> } }
      >;
    expect(completed("toolu_bg").shellToolCall!.args.isBackground).toBe(true);
    expect(completed("toolu_bg").shellToolCall!.result.success).toMatchObject({
      backgroundShellId: "bash_1",
    });
    expect(completed("toolu_read1").function!.result.success.content).toContain("one");
    const init = events.find((event) => event.type === "system" && event.subtype === "init")!;
    expect(init.tools).toEqual(expect.arrayContaining(["Bash", "BashOutput", "TaskStop", "NotebookEdit"]));
  });

  test("a grandchild that outlived its parent is ended by TaskStop (KillShell)", async () => {
    const seconds = uniqueSeconds();
    const run = await start([
      reply().tool("Bash", { command: orphaningCommand(seconds), run_in_background: true }, "toolu_bg"),
      // The model stops the shell only once the test has seen the grandchild run (seen.txt).
      reply().tool("Bash", { command: waitForFile("seen.txt") }, "toolu_wait"),
      reply().tool("KillShell", { shell_id: "bash_1" }, "toolu_kill"),
      hang(),
    ]);
    // The grandchild runs, and its parent shell is gone.
    await until("the grandchild runs", () => sleepers(seconds).length === 1);
    writeFileSync(join(run.dir, "seen.txt"), "");
    await until("TaskStop has answered", () => run.server.requests.length === 4);
    expect(toolResults(run.server.requests).get("toolu_kill")).toContain("Successfully stopped");
    // cairn is still running (waiting on the model): TaskStop, not the session's end, ended it.
    expect(run.child.exitCode).toBeNull();
    await until("the grandchild is gone", () => sleepers(seconds).length === 0);
    run.child.kill("SIGKILL");
  });

  test("a grandchild that outlived its parent and ignores SIGTERM ends with the session, before cairn exits, even with CAIRN_KEEP_BACKGROUND_JOBS=1; a later session has no such shell", async () => {
    const seconds = uniqueSeconds();
    // The opt-out keeps the jobs a command leaves behind; a background shell is the session's own.
    const env = { CAIRN_KEEP_BACKGROUND_JOBS: "1" };
    const run = await start(
      [
        reply().tool(
          "Bash",
          { command: orphaningCommand(seconds, { ignoreTerm: true }), run_in_background: true },
          "toolu_bg",
        ),
        reply().tool("Bash", { command: waitForFile("started.txt") }, "toolu_wait"),
        reply().text("Started it."),
      ],
      undefined,
      { env },
    );
    await until("the grandchild runs", () => sleepers(seconds).length === 1 || run.child.exitCode !== null);
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.out.stderr).toBe("");
    // cairn waits for its shells to end (SIGKILL after the grace) before it exits.
    expect(sleepers(seconds)).toEqual([]);

    // The resumed session reads the shell's id: it is told the shell ended with its session.
    const sessionId = parseLines(run.out.stdout).find((event) => event.type === "result")!
      .session_id as string;
    const resumed = await start(
      [reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_later"), reply().text("Gone.")],
      ["--sandbox", "disabled", "--resume", sessionId],
      { env, dir: run.dir },
    );
    expect((await resumed.exited).code).toBe(0);
    expect(toolResults(resumed.server.requests).get("toolu_later")).toContain(
      "No background shell with ID bash_1 in this session (background shells end with the session that started them)",
    );
  });

  test("a grandchild that outlived its parent ends when cairn is killed with SIGKILL", async () => {
    const seconds = uniqueSeconds();
    const run = await start([
      reply().tool("Bash", { command: orphaningCommand(seconds), run_in_background: true }, "toolu_bg"),
      hang(),
    ]);
    await until("the grandchild runs", () => sleepers(seconds).length === 1);
    run.child.kill("SIGKILL");
    await run.exited;
    await until("the grandchild is gone", () => sleepers(seconds).length === 0);
  });

  test(`under the sandbox, a background shell's processes end when cairn is killed with SIGKILL${needsSandbox}`, async () => {
    if (sandboxUnavailable) return;
    const seconds = uniqueSeconds();
    const run = await start(
      [
        reply().tool(
          "Bash",
          { command: `sleep ${seconds} & echo started > started.txt; wait`, run_in_background: true },
          "toolu_bg",
        ),
        hang(),
      ],
      ["--sandbox", "enabled"],
    );
    await until("the sandboxed sleep runs", () => sleepers(seconds).length === 1);
    run.child.kill("SIGKILL");
    await run.exited;
    await until("the sandboxed sleep is gone", () => sleepers(seconds).length === 0);
  });

  test("the permission gate decides as for Bash; a rule naming KillShell (a legacy name) allows TaskStop", async () => {
    const seconds = uniqueSeconds();
    const steps = () => [
      reply().tool("Bash", { command: `sleep ${seconds}`, run_in_background: true }, "toolu_bg"),
      reply().tool("Bash", { command: `touch made-by-bash`, run_in_background: true }, "toolu_refused"),
      reply().tool("KillShell", { shell_id: "bash_1" }, "toolu_kill"),
      reply().text("Done."),
    ];
    const rules = ["--allowedTools", `Bash(sleep:*)`];
    // Without --force: Bash(sleep:*) lets the first command start, not the second; TaskStop asks
    // (and print mode cannot ask).
    const asked = await start(steps(), ["--sandbox", "disabled", ...rules], { force: false });
    expect((await asked.exited).code).toBe(0);
    const refused = toolResults(asked.server.requests);
    expect(refused.get("toolu_bg")).toMatch(/^Command running in background with ID: bash_1/);
    expect(refused.get("toolu_refused")).toMatch(/denied/);
    expect(existsSync(join(asked.dir, "made-by-bash"))).toBe(false);
    expect(refused.get("toolu_kill")).toMatch(/denied/);
    expect(asked.out.stderr).toBe("");

    const allowed = await start(steps(), ["--sandbox", "disabled", ...rules, "KillShell"], { force: false });
    expect((await allowed.exited).code).toBe(0);
    expect(toolResults(allowed.server.requests).get("toolu_kill")).toContain("Successfully stopped");
    expect(allowed.out.stderr).toBe("");
  });

  test("what a shell prints between two reads is capped in memory: the newest is kept, the rest counted", async () => {
    // 300 000 lines of "x" then "last line": far more than a stream keeps (200 000 characters).
    const command = "yes x | head -n 300000; echo last line; touch printed";
    const run = await start([
      reply().tool("Bash", { command, run_in_background: true }, "toolu_bg"),
      reply().tool("Bash", { command: waitForFile("printed") }, "toolu_wait"),
      reply().tool("BashOutput", { bash_id: "bash_1" }, "toolu_read"),
      reply().text("Done."),
    ]);
    const { code } = await run.exited;
    expect(code).toBe(0);
    const read = toolResults(run.server.requests).get("toolu_read")!;
    expect(read).toContain("last line");
    // 600 000 characters printed, 200 000 kept (its tail): 400 000 dropped, and said so.
    expect(read).toContain("400010 characters of older output were dropped");
    const events = parseLines(run.out.stdout);
    expect(events.some((event) => JSON.stringify(event).includes("last line"))).toBe(true);
    expect(existsSync(join(run.dir, "printed"))).toBe(true);
  });
});
