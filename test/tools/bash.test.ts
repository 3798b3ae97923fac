import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ReplayProvider } from "../../src/providers/replay.js";
import { assembleRun } from "../../src/run/assemble.js";
import { bashTool } from "../../src/tools/bash.js";
import { isAlive, signalPid } from "../helpers/process.js";
import { context, tempDir } from "./helpers.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

async function waitFor(check: () => boolean | Promise<boolean>, ms = 8000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

async function readPids(file: string, count: number): Promise<number[]> {
  let pids: number[] = [];
  await waitFor(async () => {
    const text = await readFile(file, "utf8").catch(() => "");
    pids = text.split("\n").filter(Boolean).map(Number);
    return pids.length >= count;
  });
  return pids;
}

const started: number[] = [];
afterEach(() => {
  // Belt and braces: never leave a test's sleeper behind, even when an assertion failed.
  for (const pid of started.splice(0)) signalPid(pid, "SIGKILL");
});

describe("Bash", () => {
  it("an abort that arrives while the shell is starting still stops the command", async () => {
    const dir = await tempDir();
    const ctx = context(dir);
    const pending = bashTool.execute({ command: "echo $$ > pid; exec sleep 30" }, ctx);
    ctx.controller.abort(); // before the child exists: the tool is still looking up its shell
    const out = await pending;
    expect(out.errorKind).toBe("aborted");
    // The shell may have been stopped after it opened the file and before it wrote to it.
    const text = await readFile(path.join(dir, "pid"), "utf8").catch(() => "");
    const pid = text.trim() === "" ? undefined : Number(text);
    if (pid !== undefined) {
      started.push(pid);
      expect(isAlive(pid)).toBe(false);
    }
  });

  it("returns stdout, stderr and a non-zero exit code without failing the tool", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "echo out; echo err >&2; exit 3" }, context(dir));
    expect(out.isError).toBe(false);
    expect(out.content).toBe("out\nerr\nExit code 3");
    expect(out.data).toMatchObject({
      command: "echo out; echo err >&2; exit 3",
      workingDirectory: dir,
      exitCode: 3,
      signal: null,
      stdout: "out\n",
      stderr: "err\n",
      timedOut: false,
      interrupted: false,
    });
    expect(typeof out.data?.executionTime).toBe("number");
  });

  it("runs in the working directory with bash and empty stdin", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute(
      { command: 'pwd; [ -n "$BASH_VERSION" ] && echo bash; cat' },
      context(dir),
    );
    expect(out.content).toBe(`${dir}\nbash`);
    expect(out.data).toMatchObject({ exitCode: 0 });
  });

  it("says when there is no output", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "true" }, context(dir));
    expect(out.content).toBe("(no output)");
  });

  it("stops a command at its timeout and reports it", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "echo before; sleep 30", timeout: 300 }, context(dir));
    expect(out.isError).toBe(true);
    expect(out.content).toBe(
      "before\nCommand timed out after 300 ms; it and its child processes were stopped.",
    );
    expect(out.data).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGTERM", stdout: "before\n" });
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute(
      { command: "trap '' TERM; sleep 30; echo survived", timeout: 200 },
      context(dir),
    );
    expect(out.data).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(out.content).not.toContain("survived");
  });

  it("kills the whole process group on timeout, background jobs included", async () => {
    const dir = await tempDir();
    const pidFile = path.join(dir, "pids");
    const out = await bashTool.execute(
      { command: `sleep 30 & echo $! > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; wait`, timeout: 500 },
      context(dir),
    );
    expect(out.data).toMatchObject({ timedOut: true });
    const pids = await readPids(pidFile, 2);
    started.push(...pids);
    expect(pids).toHaveLength(2);
    expect(await waitFor(() => pids.every((pid) => !isAlive(pid)))).toBe(true);
  });

  it("kills the whole process group when aborted", async () => {
    const dir = await tempDir();
    const pidFile = path.join(dir, "pids");
    const ctx = context(dir);
    const running = bashTool.execute(
      {
        command: `echo $$ > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; sleep 30 & echo $! >> ${pidFile}; wait`,
      },
      ctx,
    );
    const pids = await readPids(pidFile, 3);
    started.push(...pids);
    expect(pids).toHaveLength(3);
    expect(pids.every(isAlive)).toBe(true);
    ctx.controller.abort();
    const out = await running;
    expect(out).toMatchObject({ isError: true, errorKind: "aborted" });
    expect(await waitFor(() => pids.every((pid) => !isAlive(pid)))).toBe(true);
  });

  it("does not pass the agent's secrets to commands (the environment the run assembly gives the tools)", async () => {
    const dir = await tempDir();
    const env = {
      ...process.env,
      FOO_API_KEY: "foo-key-value",
      MY_SECRET: "my-secret-value",
      CAIRN_PLAIN_VAR: "plain-value",
    };
    const run = await assembleRun({
      cwd: dir,
      env,
      tools: [bashTool],
      permissions: { fallbackMode: "bypassPermissions", source: "test" },
      resolvedModel: {
        provider: new ReplayProvider({ version: 1, steps: [] }, "test"),
        model: "replay",
        providerModel: "replay",
        priceUsage: () => 0,
      },
    });
    const loop = await run.loopOptions({
      prompt: "",
      signal: new AbortController().signal,
      sessionId: "s",
      history: [],
    });
    const out = await bashTool.execute({ command: "env" }, { ...context(dir), env: loop.env });
    expect(out.content).not.toContain("foo-key-value");
    expect(out.content).not.toContain("my-secret-value");
    expect(out.content).toContain("CAIRN_PLAIN_VAR=plain-value");
  });

  it("git diff shows the change under the git settings every command gets", async () => {
    // `diff.external=` among them made git run "" for every diff: "fatal: external diff died".
    const dir = await tempDir();
    const commit = "git -c user.name=n -c user.email=e commit -qm one";
    const out = await bashTool.execute(
      { command: `git init -q . && echo old > f && git add f && ${commit} && echo new > f && git diff` },
      context(dir),
    );
    expect(out.content).toContain("-old\n+new");
    expect(out.isError ?? false).toBe(false);
  });

  it("uses the environment the caller passes as is", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute(
      { command: 'echo "$ONLY_THIS"' },
      context(dir, { env: { PATH: process.env.PATH, ONLY_THIS: "given" } }),
    );
    expect(out.content).toBe("given");
  });

  it("caps a huge output in bounded memory and says what it cut", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "yes | head -c 50000000" }, context(dir));
    expect(out.isError).toBe(false);
    const stdout = String(out.data?.stdout);
    expect(stdout.length).toBeLessThan(31_000);
    expect(stdout.startsWith("y\ny\n")).toBe(true);
    expect(stdout).toMatch(/\[\.\.\. 4\d{7} characters of output omitted \.\.\.\]/);
    expect(out.content.length).toBeLessThan(32_000);
    expect(out.content).toContain("characters of output omitted");
  });

  it("does not break multi-byte characters at the cut", async () => {
    const dir = await tempDir();
    const two = await bashTool.execute(
      { command: "head -c 14999 /dev/zero | tr '\\0' a; yes é | head -n 40000 | tr -d '\\n'" },
      context(dir),
    );
    const text = String(two.data?.stdout);
    expect(text).not.toContain("\uFFFD");
    expect(text.startsWith(`${"a".repeat(14999)}é\n`)).toBe(true);
    expect(text.endsWith("é".repeat(1000))).toBe(true);

    const four = await bashTool.execute(
      { command: "head -c 14999 /dev/zero | tr '\\0' a; yes 👋 | head -n 40000 | tr -d '\\n'" },
      context(dir),
    );
    const emoji = String(four.data?.stdout);
    expect(emoji).not.toContain("\uFFFD");
    expect(emoji).not.toMatch(LONE_SURROGATE);
    expect(emoji.endsWith("👋".repeat(1000))).toBe(true);
  });

  it("stops background jobs that keep its output open once the command ends", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "sleep 30 & echo $!" }, context(dir));
    const pid = Number(String(out.data?.stdout).trim());
    started.push(pid);
    expect(out.isError).toBe(false);
    expect(out.content).toContain("Background processes still holding the command's output were stopped");
    expect(await waitFor(() => !isAlive(pid))).toBe(true);
  });

  it("rejects a timeout above the maximum without running", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "touch ran", timeout: 600_001 }, context(dir));
    expect(out).toMatchObject({ isError: true, errorKind: "invalid_input" });
    expect(out.content).toContain("`timeout`");
    await expect(readFile(path.join(dir, "ran"))).rejects.toThrow();
  });

  it("reports a missing working directory", async () => {
    const dir = await tempDir();
    const out = await bashTool.execute({ command: "true" }, context(path.join(dir, "gone")));
    expect(out.isError).toBe(true);
    expect(out.content).toContain("Working directory does not exist");
  });
});
